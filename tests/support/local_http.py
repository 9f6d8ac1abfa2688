"""HTTP clients for the tests' own servers, without building a TLS context for each.

httpx builds a new verifying TLS context (the whole CA bundle read and parsed) for every client
it makes, and ``httpx.get`` makes a client per call: about 30 ms of CPU on a fast box even for a
plain ``http://127.0.0.1`` URL. A server's start polled ``/readyz`` that way every 0.2 s, so the
worker spent more CPU asking than a slow box's server spent starting. One context per process,
shared by every client, verifies as httpx does (the same CA bundle) for the cost of one.
"""

from __future__ import annotations

import functools
import ssl
from typing import Any

import certifi
import httpx


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The process's one verifying TLS context, as httpx builds its default one."""
    return ssl.create_default_context(cafile=certifi.where())


def client(**options: Any) -> httpx.Client:
    """``httpx.Client(**options)`` sharing :func:`tls_context`."""
    return httpx.Client(verify=tls_context(), **options)


def async_client(**options: Any) -> httpx.AsyncClient:
    """``httpx.AsyncClient(**options)`` sharing :func:`tls_context`."""
    return httpx.AsyncClient(verify=tls_context(), **options)
