"""A with of several items written over several lines, against nested withs.

3.13 keeps a local's store and the next local's load apart when they are on two lines, whether
the second item only went on to the next line or is an inner with: the columns tell them apart
(the inner with stands deeper than the outer one, and its body deeper still). A second item
continued by less than the body's indent is told by the lines alone (read as nested withs)."""


def continued_aligned(self, cmd):
    # (PEP 8's layout: the second item under the first)
    with self.transfercmd(cmd) as conn, \
         conn.makefile('r') as fp:
        while 1:
            line = fp.readline()
            if not line:
                break
        if conn is not None:
            conn.unwrap()
    return 1


def continued_one_indent(self, cmd):
    # (ftplib's layout: the second item one indent further in)
    with self.transfercmd(cmd) as conn, \
             conn.makefile('r') as fp:
        while 1:
            line = fp.readline()
            if not line:
                break
        if conn is not None:
            conn.unwrap()
    return 1


def nested_two(self):
    with self.a() as conn:
        with conn.b() as fp:
            fp.write(1)


def nested_two_while(self):
    with self.a() as conn:
        with conn.b() as fp:
            while 1:
                fp.write(1)
