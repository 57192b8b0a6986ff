CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT NOT NULL);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), placed TEXT NOT NULL, cents INTEGER NOT NULL);
INSERT INTO customers VALUES (1,'Ada','London'),(2,'Grace','New York'),(3,'Alan','Manchester'),(4,'Edsger','Rotterdam'),(5,'Barbara','Boston');
INSERT INTO orders VALUES (1,1,'2026-02-01',1250),(2,2,'2026-02-02',4999),(3,1,'2026-02-03',300),(4,3,'2026-02-05',12000),(5,4,'2026-02-07',875),(6,2,'2026-02-09',2210),(7,5,'2026-02-10',6400),(8,1,'2026-02-11',1999),(9,3,'2026-02-12',450),(10,5,'2026-02-14',3125),(11,2,'2026-02-15',780);
