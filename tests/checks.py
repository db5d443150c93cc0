"""Counting checks in the test scripts that are programs of their own (not pytest): each
check is named, a failing one keeps its detail, and the summary line is the one CI reads
("N passed, N failed")."""


class Checks:
    def __init__(self):
        self.checked = 0
        self.failures = []

    def __call__(self, name, ok, detail=""):
        """Records the check `name`: passed when `ok`, else failed with `detail`."""
        self.checked += 1
        if not ok:
            self.failures.append(f"{name}: {detail}")

    def report(self):
        """Prints each failure and the summary line; the exit status for them."""
        for f in self.failures:
            print("FAIL", f)
        print(f"{self.checked - len(self.failures)} passed, {len(self.failures)} failed")
        return 1 if self.failures else 0
