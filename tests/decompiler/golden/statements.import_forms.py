def import_forms():
    import os
    import os.path
    import os.path as osp
    import xml.etree.ElementTree as ET
    import collections.abc
    from os import sep
    from os import sep as separator, curdir
    from os.path import join, split as split_path
    from collections import OrderedDict, defaultdict as dd
    import json
    import copy
    return os.sep, osp.join('a', 'b'), ET.__name__, collections.abc.Mapping.__name__, sep, separator, curdir, join('x', 'y'), split_path('a/b'), OrderedDict.__name__, dd.__name__, json.__name__, copy.copy([1])
