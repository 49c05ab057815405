"""PostgreSQL backend (psycopg 3 + pgvector) and the embedded server launcher."""
