"""Threads racing a cache clearer: the text layer's results must not depend on them."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from lexeval.text.base import KeywordAnalysis
from lexeval.text.processor import StepProcessor


def analyses_while_clearing(processor: StepProcessor, texts: list[str]) -> list[KeywordAnalysis]:
    """``keyword_analysis`` of ``texts`` by four threads while a fifth empties the processor's
    chunk cache and token memo every half millisecond."""
    stop = threading.Event()

    def clear() -> None:
        while not stop.is_set():
            processor._clear_chunks()
            processor._token_memo.clear()
            stop.wait(0.0005)

    clearer = threading.Thread(target=clear)
    clearer.start()
    try:
        with ThreadPoolExecutor(4) as pool:
            return list(pool.map(processor.keyword_analysis, texts))
    finally:
        stop.set()
        clearer.join()
