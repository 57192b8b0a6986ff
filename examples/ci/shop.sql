-- A tiny, fixed database for the replayed session: same rows on every CI run.
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT NOT NULL, total_cents INTEGER NOT NULL);
INSERT INTO orders (customer, total_cents) VALUES ('ana', 1250), ('ben', 4999), ('ana', 300);
