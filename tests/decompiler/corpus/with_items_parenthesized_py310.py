"""A parenthesized with of several items, one per line (3.10+), read as one with."""


def continued_parens(self):
    with (
        self.a() as conn,
        conn.b() as fp,
    ):
        fp.write(1)
