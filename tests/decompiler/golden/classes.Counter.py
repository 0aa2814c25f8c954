class Counter(Base):
    """Counts."""
    kind = 'counter'
    __slots_like = ('hidden',)
    def __init__(self, value=0, *, step=1):
        super().__init__(value)
        self.n = 0
        self.step = step
        self.__private = 'mangled'
    def bump(self):
        self.n += 1
        self.n += self.step
        return self.n
    def describe(self):
        base = super().describe()
        return base + '/' + str(self.n)
    def explicit_super(self):
        return super(Counter, self).describe()
    def which_class(self):
        return __class__.__name__
    def private(self):
        return self.__private, self.__slots_like
    @property
    def double(self):
        """Twice the count."""
        return self.n * 2
    @double.setter
    def double(self, v):
        self.n = v // 2
    def __repr__(self):
        return f'Counter({self.value!r}, n={self.n})'
    def __eq__(self, other):
        return isinstance(other, Counter) and other.n == self.n
    __hash__ = None
