"""rocesim — drive the rocesim packet-level RoCEv2 fabric simulator from Python.

A thin ctypes binding of librocesim (rocesim.h; docs/library.md), standard
library only. Times are integer picoseconds, sizes integer bytes.

    import rocesim
    with rocesim.Fabric("scenarios/star.ini", sets=["topology.hosts=4"]) as f:
        g = [f.endpoint("host%d.gpu0" % i) for i in range(4)]
        f.post_coll("allreduce", g, 1 << 20, at_ps=0, tag=7)
        c = f.next()              # Completion(tag=7, time_ps=..., ...)
        print(c.time_ps, f.now)

The library is looked for in: $ROCESIM_LIBRARY (a path to librocesim.so);
beside an installed module ($prefix/share/rocesim/python -> $prefix/lib);
a build tree's .libs (when the module is run from the source tree with
ROCESIM_BUILDDIR set); then the system's search path.
"""

import ctypes
import ctypes.util
import os
from collections import namedtuple

__all__ = ["Fabric", "Completion", "DpPlan", "RocesimError", "library_version"]

OK, E_INPUT, E_PAST, E_NAME, E_ARG, E_STALLED, E_IDLE, E_IO = 0, -1, -2, -3, -4, -5, -6, -7
_CODE = {E_INPUT: "input", E_PAST: "past", E_NAME: "name", E_ARG: "arg", E_STALLED: "stalled",
         E_IDLE: "idle", E_IO: "io"}
INT64_MAX = (1 << 63) - 1


class RocesimError(Exception):
    """An error of the library: .code is its name (past, name, arg, ...), .rc its number."""

    def __init__(self, rc, message):
        super().__init__("%s: %s" % (_CODE.get(rc, str(rc)), message))
        self.rc = rc
        self.code = _CODE.get(rc, str(rc))
        self.message = message


Completion = namedtuple("Completion", "tag time_ps posted_ps bytes kind id")
DpPlan = namedtuple("DpPlan", "iterations start_ps compute_ps optimizer_ps bucket_bytes gpus "
                              "algorithm chunk_bytes channels")


class _Completion(ctypes.Structure):
    _fields_ = [("tag", ctypes.c_uint64), ("time_ps", ctypes.c_int64), ("posted_ps", ctypes.c_int64),
                ("bytes", ctypes.c_uint64), ("kind", ctypes.c_int), ("id", ctypes.c_int64)]


class _DpPlan(ctypes.Structure):
    _fields_ = [("iterations", ctypes.c_int), ("start_ps", ctypes.c_int64), ("compute_ps", ctypes.c_int64),
                ("optimizer_ps", ctypes.c_int64), ("n_buckets", ctypes.c_int),
                ("bucket_bytes", ctypes.POINTER(ctypes.c_uint64)), ("n_gpus", ctypes.c_int),
                ("gpus", ctypes.POINTER(ctypes.c_int)), ("algorithm", ctypes.c_char_p),
                ("chunk_bytes", ctypes.c_uint64), ("channels", ctypes.c_int)]


def _candidates():
    env = os.environ.get("ROCESIM_LIBRARY")
    if env:
        yield env
    here = os.path.dirname(os.path.abspath(__file__))
    # Installed: $prefix/share/rocesim/python/rocesim.py -> $prefix/lib.
    prefix = os.path.dirname(os.path.dirname(os.path.dirname(here)))
    for name in ("librocesim.so.0", "librocesim.so", "librocesim.dylib"):
        yield os.path.join(prefix, "lib", name)
    build = os.environ.get("ROCESIM_BUILDDIR")
    if build:
        yield os.path.join(build, ".libs", "librocesim.so.0")
    found = ctypes.util.find_library("rocesim")
    if found:
        yield found


def _load():
    tried = []
    for path in _candidates():
        if os.path.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise OSError("librocesim not found; set ROCESIM_LIBRARY to its path (tried: %s)" % ", ".join(tried))


_lib = _load()
_P = ctypes.c_void_p
_sig = {
    "rocesim_open": (_P, [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t, ctypes.c_char_p]),
    "rocesim_close": (ctypes.c_int, [_P, ctypes.POINTER(ctypes.c_char_p)]),
    "rocesim_last_error": (ctypes.c_char_p, [_P]),
    "rocesim_version": (ctypes.c_char_p, []),
    "rocesim_now": (ctypes.c_int64, [_P]),
    "rocesim_endpoint": (ctypes.c_int, [_P, ctypes.c_char_p]),
    "rocesim_n_gpus": (ctypes.c_int, [_P]),
    "rocesim_n_hosts": (ctypes.c_int, [_P]),
    "rocesim_pending": (ctypes.c_int, [_P]),
    "rocesim_post_msg": (ctypes.c_int, [_P, ctypes.c_int, ctypes.c_int, ctypes.c_uint64, ctypes.c_int64,
                                        ctypes.c_uint64]),
    "rocesim_post_coll": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int),
                                         ctypes.c_size_t, ctypes.c_uint64, ctypes.c_int64, ctypes.c_uint64]),
    "rocesim_post_msg_after": (ctypes.c_int, [_P, ctypes.c_uint64, ctypes.c_int, ctypes.c_int, ctypes.c_uint64,
                                              ctypes.c_uint64]),
    "rocesim_post_coll_after": (ctypes.c_int, [_P, ctypes.c_uint64, ctypes.c_char_p, ctypes.c_char_p,
                                               ctypes.POINTER(ctypes.c_int), ctypes.c_size_t, ctypes.c_uint64,
                                               ctypes.c_uint64]),
    "rocesim_coll_options": (ctypes.c_int, [_P, ctypes.c_uint64, ctypes.c_int]),
    "rocesim_advance": (ctypes.c_int, [_P, ctypes.c_int64]),
    "rocesim_poll": (ctypes.c_int, [_P, ctypes.POINTER(_Completion)]),
    "rocesim_next": (ctypes.c_int, [_P, ctypes.c_int64, ctypes.POINTER(_Completion)]),
    "rocesim_job_dp_plan": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.POINTER(_DpPlan)]),
}
for _name, (_res, _args) in _sig.items():
    _fn = getattr(_lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args


def library_version():
    return _lib.rocesim_version().decode()


def _b(s):
    return s.encode() if isinstance(s, str) else s


class Fabric:
    """An open fabric (rocesim_open). Use as a context manager, or call close()."""

    def __init__(self, scenario, sets=(), output=None):
        arr = (ctypes.c_char_p * max(1, len(sets)))(*[_b(s) for s in sets])
        self._h = _lib.rocesim_open(_b(str(scenario)), arr, len(sets), _b(output) if output else None)
        if not self._h:
            raise RocesimError(E_INPUT, _lib.rocesim_last_error(None).decode())
        self.status = None

    def _check(self, rc):
        if rc < 0:
            raise RocesimError(rc, _lib.rocesim_last_error(self._h).decode())
        return rc

    def _handle(self):
        if not self._h:
            raise RocesimError(E_ARG, "the fabric is closed")
        return self._h

    @property
    def now(self):
        return _lib.rocesim_now(self._handle())

    @property
    def n_gpus(self):
        return _lib.rocesim_n_gpus(self._handle())

    @property
    def n_hosts(self):
        return _lib.rocesim_n_hosts(self._handle())

    @property
    def pending(self):
        return _lib.rocesim_pending(self._handle())

    def endpoint(self, name):
        """GPU id of "hostH.gpuI", or n_gpus + H for "hostH"."""
        return self._check(_lib.rocesim_endpoint(self._handle(), _b(name)))

    def post_msg(self, src, dst, nbytes, at_ps=None, tag=0, after=None):
        """A message at at_ps, or (after=TAG) when the pending post tagged TAG completes."""
        src = self.endpoint(src) if isinstance(src, str) else src
        dst = self.endpoint(dst) if isinstance(dst, str) else dst
        if after is not None:
            self._check(_lib.rocesim_post_msg_after(self._handle(), after, src, dst, nbytes, tag))
        else:
            self._check(_lib.rocesim_post_msg(self._handle(), src, dst, nbytes, at_ps, tag))

    def post_coll(self, op, gpus, nbytes, at_ps=None, tag=0, algorithm=None, after=None):
        """A collective at at_ps, or (after=TAG) when the pending post tagged TAG completes."""
        ids = [self.endpoint(g) if isinstance(g, str) else g for g in gpus]
        arr = (ctypes.c_int * max(1, len(ids)))(*ids)
        alg = _b(algorithm) if algorithm else None
        if after is not None:
            self._check(_lib.rocesim_post_coll_after(self._handle(), after, _b(op), alg, arr, len(ids), nbytes, tag))
        else:
            self._check(_lib.rocesim_post_coll(self._handle(), _b(op), alg, arr, len(ids), nbytes, at_ps, tag))

    def coll_options(self, chunk_bytes, channels):
        self._check(_lib.rocesim_coll_options(self._handle(), chunk_bytes, channels))

    def advance(self, until_ps):
        self._check(_lib.rocesim_advance(self._handle(), until_ps))

    @staticmethod
    def _completion(c):
        return Completion(c.tag, c.time_ps, c.posted_ps, c.bytes, "coll" if c.kind == 1 else "msg", c.id)

    def poll(self):
        """The oldest completion not yet taken, or None."""
        c = _Completion()
        return self._completion(c) if self._check(_lib.rocesim_poll(self._handle(), ctypes.byref(c))) else None

    def next(self, limit_ps=INT64_MAX):
        """Runs until a completion (returned) or limit_ps (None); RocesimError 'idle' when nothing is pending."""
        c = _Completion()
        got = self._check(_lib.rocesim_next(self._handle(), limit_ps, ctypes.byref(c)))
        return self._completion(c) if got else None

    def job_dp_plan(self, job):
        p = _DpPlan()
        self._check(_lib.rocesim_job_dp_plan(self._handle(), _b(job), ctypes.byref(p)))
        return DpPlan(p.iterations, p.start_ps, p.compute_ps, p.optimizer_ps,
                      [p.bucket_bytes[i] for i in range(p.n_buckets)], [p.gpus[i] for i in range(p.n_gpus)],
                      p.algorithm.decode(), p.chunk_bytes, p.channels)

    def close(self):
        """Finishes the run (writes the database when one was named); returns the run's status."""
        if not self._h:
            return self.status
        st = ctypes.c_char_p()
        rc = _lib.rocesim_close(self._h, ctypes.byref(st))
        self._h = None
        self.status = st.value.decode() if st.value else None
        if rc < 0 and rc != E_STALLED:
            raise RocesimError(rc, "closing: the result database could not be written")
        return self.status

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        if getattr(self, "_h", None):
            self.close()
