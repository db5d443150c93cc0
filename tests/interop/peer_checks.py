"""What the peer test scripts share: counted checks that collect failures instead of
stopping at the first, and the summary line and exit status ctest reads."""


class Checks:
    """check(ok, what) records one check; failures are printed as they happen."""

    def __init__(self):
        self.count = 0
        self.failures = []

    def __call__(self, ok, what):
        self.count += 1
        if not ok:
            self.failures.append(what)
            print("FAIL:", what)

    def summary(self):
        """Prints "N checks, M failed" and returns the exit status (1 when any failed)."""
        print(f"{self.count} checks, {len(self.failures)} failed")
        return 1 if self.failures else 0
