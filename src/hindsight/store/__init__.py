"""Storage contracts (``base``) and backends (``sqlite``)."""
