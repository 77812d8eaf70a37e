/* lexeval.native.results: an object of a class with slots built and filled in one call.
 *
 * The pure-Python code stays the reference (lexeval.metrics.base.new_result, which sets each
 * field of a MetricResult through its slot's member descriptor); this function does the same
 * and the tests compare the two:
 *
 *   new(cls, members, *values)
 *       cls       a class (object.__new__(cls) makes the object)
 *       members   a tuple of member descriptors of cls (its slots: vars(cls)[name]), one per
 *                 value
 *       values    the values, set in order as members[i].__set__(obj, values[i]) sets them
 *   returns the new object. A member that is not a member descriptor of cls (or of one of its
 *   bases), or a count that differs from the values', is a TypeError; an error of
 *   object.__new__ or of a member's set (a read-only member) propagates.
 *
 * No Python code runs: object.__new__ and the members' sets are C code. Nothing of the host
 * process is touched.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "process_state.h"
#include <structmember.h>

static PyObject *EMPTY_ARGS; /* () */

static PyObject *py_new(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs < 2 || !PyType_Check(args[0]) || !PyTuple_CheckExact(args[1]) ||
        PyTuple_GET_SIZE(args[1]) != nargs - 2) {
        PyErr_SetString(PyExc_TypeError,
                        "new(cls, members, *values): a class, then a tuple of its member "
                        "descriptors, one per value");
        return NULL;
    }
    PyTypeObject *cls = (PyTypeObject *)args[0];
    PyObject *members = args[1];
    Py_ssize_t n = PyTuple_GET_SIZE(members);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *member = PyTuple_GET_ITEM(members, i);
        if (!Py_IS_TYPE(member, &PyMemberDescr_Type) ||
            !PyType_IsSubtype(cls, PyDescr_TYPE(member))) {
            PyErr_Format(PyExc_TypeError, "new: members[%zd] is not a member descriptor of %s",
                         i, cls->tp_name);
            return NULL;
        }
    }
    /* object.__new__(cls): its checks (an abstract class, a type that object.__new__ cannot
     * make) and cls's allocation */
    PyObject *made = PyBaseObject_Type.tp_new(cls, EMPTY_ARGS, NULL);
    if (made == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyMemberDef *def = ((PyMemberDescrObject *)PyTuple_GET_ITEM(members, i))->d_member;
        if (PyMember_SetOne((char *)made, def, args[2 + i]) < 0) {
            Py_DECREF(made);
            return NULL;
        }
    }
    return made;
}

static PyMethodDef METHODS[] = {
    {"new", (PyCFunction)(void (*)(void))py_new, METH_FASTCALL,
     "new(cls, members, *values) -> object.__new__(cls) with members[i] set to values[i]."},
    {NULL, NULL, 0, NULL},
};

/* ---- module init: multi-phase (PEP 489) ------------------------------------------------
 * Process-wide static state stays (the empty tuple object.__new__ is called with): one copy for
 * the process, made for the main interpreter's objects.
 * (process_state.h: so the module loads in the main interpreter only). */
static int exec_module(PyObject *module)
{
    (void)module;
    if (lexeval_main_interpreter_only("lexeval.native.results") < 0)
        return -1;
    if (EMPTY_ARGS == NULL && (EMPTY_ARGS = PyTuple_New(0)) == NULL)
        return -1;
    return 0;
}

static PyModuleDef_Slot SLOTS[] = {
    {Py_mod_exec, (void *)exec_module},
    LEXEVAL_PROCESS_WIDE_STATE_SLOTS
    {0, NULL},
};

static struct PyModuleDef MODULE = {
    PyModuleDef_HEAD_INIT, "lexeval.native.results",
    "An object of a class with slots built and filled in one call (see lexeval.native).", 0,
    METHODS, SLOTS,
};

PyMODINIT_FUNC PyInit_results(void) { return PyModuleDef_Init(&MODULE); }
