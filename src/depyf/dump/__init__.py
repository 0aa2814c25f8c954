"""Writing dumps: the file layout of ``prepare_debug`` (:mod:`depyf.dump.layout`) and atomic,
always-valid file writes, per rank when several processes dump (:mod:`depyf.dump.writer`)."""
