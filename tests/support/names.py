"""Names for what one test creates in a catalog shared by a whole session."""

import itertools

_counter = itertools.count(1)


def name_for_test(request, prefix: str = "t", length: int = 40) -> str:
    """A namespace or database name no other test of the session gets: `prefix`, a counter
    and the test's name, lower case, with anything but letters, digits and '_' as '_'."""
    name = f"{prefix}{next(_counter)}_{request.node.name.removeprefix('test_')[:length]}"
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name).lower().rstrip("_")
