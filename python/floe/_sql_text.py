"""Names and strings spliced into SQL text (floe's and Spark's lexers agree on both)."""


def quote_identifier(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def sql_string(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
