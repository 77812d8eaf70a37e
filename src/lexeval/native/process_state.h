/* What every C kernel of lexeval.native that keeps process-wide static state says about itself
 * (multi-phase init, PEP 489): one copy of that state for the process, made for the main
 * interpreter's objects, so the kernel loads in the main interpreter only. Any other one gets an
 * ImportError: Py_mod_multiple_interpreters says so from 3.12 on, and
 * lexeval_main_interpreter_only() covers 3.11 and subinterpreters that do not check; lexeval
 * runs its pure-Python code there (lexeval.native.load). Each kernel relies on the GIL
 * (Py_mod_gil, 3.13+). Usage, in a kernel's slots:
 *
 *     static PyModuleDef_Slot SLOTS[] = {
 *         {Py_mod_exec, (void *)exec_module},
 *         LEXEVAL_PROCESS_WIDE_STATE_SLOTS
 *         {0, NULL},
 *     };
 */
#ifndef LEXEVAL_NATIVE_PROCESS_STATE_H
#define LEXEVAL_NATIVE_PROCESS_STATE_H

#include <Python.h>

#if PY_VERSION_HEX >= 0x030C0000
#define LEXEVAL_SLOT_INTERPRETERS_NOT_SUPPORTED \
    {Py_mod_multiple_interpreters, Py_MOD_MULTIPLE_INTERPRETERS_NOT_SUPPORTED},
#else
#define LEXEVAL_SLOT_INTERPRETERS_NOT_SUPPORTED
#endif

#if PY_VERSION_HEX >= 0x030D0000
#define LEXEVAL_SLOT_GIL_USED {Py_mod_gil, Py_MOD_GIL_USED},
#else
#define LEXEVAL_SLOT_GIL_USED
#endif

#define LEXEVAL_PROCESS_WIDE_STATE_SLOTS LEXEVAL_SLOT_INTERPRETERS_NOT_SUPPORTED LEXEVAL_SLOT_GIL_USED

/* 0 in the main interpreter; elsewhere -1 with an ImportError naming the kernel. */
static inline int lexeval_main_interpreter_only(const char *kernel)
{
    if (PyInterpreterState_Get() != PyInterpreterState_Main()) {
        PyErr_Format(PyExc_ImportError,
                     "%s keeps process-wide state: it loads in the main interpreter only "
                     "(lexeval runs its pure-Python code elsewhere)",
                     kernel);
        return -1;
    }
    return 0;
}

#endif
