"""The names and version of the dump manifest, shared by the writer and the report.

The manifest is the contract between a dump (written where torch ran) and the report (built
anywhere, without torch), so both sides read these constants from this one torch-free module.
"""

MANIFEST_NAME = "depyf_manifest.json"
MANIFEST_FORMAT = "depyf-dump-manifest"
MANIFEST_VERSION = 1
REPORT_NAME = "report.html"
