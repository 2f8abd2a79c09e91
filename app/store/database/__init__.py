"""The SQL backends (SQLite and PostgreSQL): :class:`~app.store.database.sql.SqlStore` and the
modules it writes and reads with (the schema, the statements, the daily attempts', the races' and
the results' SQL)."""
