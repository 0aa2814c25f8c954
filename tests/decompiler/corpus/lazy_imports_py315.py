"""Lazy imports (PEP 810, needs Python 3.15): only a module body may hold them; the module-body
round trip (`test_module_bodies`) compares them. The functions use the names they bind."""
lazy import json
lazy import os.path
lazy import os.path as osp
lazy import xml.dom.minidom as minidom, textwrap
lazy from collections import OrderedDict, deque as dq
import sys

from _cases import cases


@cases((),)
def uses_lazy_names():
    return json.dumps([1]), osp.join("a", "b"), os.path.sep, dq([1]).pop(), list(OrderedDict(a=1))


@cases((),)
def lazy_names_resolved():
    return textwrap.dedent("  x"), minidom.__name__, sys.version_info >= (3, 15)
