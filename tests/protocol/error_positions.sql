-- Statements whose errors PostgreSQL places (the P field: psql's LINE and caret), and some
-- it does not. tests/protocol/error_positions.sh runs them against both servers.
CREATE TABLE ep_t (a int, b text, c date);
CREATE TABLE ep_u (a int, d int);
-- names
SELECT nosuch FROM ep_t;
SELECT ep_t.nosuch FROM ep_t;
SELECT x.a FROM ep_t;
SELECT public.ep_t.nosuch FROM ep_t;
SELECT a FROM ep_t, ep_u;
SELECT "Quoted" FROM ep_t;
SELECT a FROM (SELECT 1 AS b) s;
SELECT a FROM ep_t ORDER BY nosuch;
SELECT a FROM ep_t GROUP BY nosuch;
SELECT a FROM ep_t WHERE a IN (SELECT nosuch FROM ep_u);
SELECT * FROM nosuch;
SELECT * FROM public.nosuch;
SELECT * FROM ep_t JOIN nosuch ON true;
INSERT INTO nosuch VALUES (1);
INSERT INTO ep_t (a, nosuch) VALUES (1, 2);
UPDATE ep_t SET nosuch = 1;
UPDATE nosuch SET a = 1;
DELETE FROM nosuch;
COPY nosuch FROM STDIN;
SELECT 'x'::nosuch;
CREATE TABLE ep_x (a nosuch);
CREATE TABLE ep_x (a public.nosuch);
-- functions and operators
SELECT nosuch(1);
SELECT lower(1, 2);
SELECT abs('x'::text);
SELECT upper(a) FROM ep_t;
SELECT max(a, b) FROM ep_t;
SELECT 1 + 'a'::text;
SELECT a + b FROM ep_t;
SELECT (a) + b FROM ep_t;
SELECT a || 1 <> b FROM ep_t;
SELECT - 'x'::text;
SELECT 1 - - 'x'::text;
-- aggregates
SELECT count(*) FROM ep_t WHERE count(*) > 1;
SELECT sum(sum(a)) FROM ep_t;
SELECT a FROM ep_t WHERE row_number() OVER () > 1;
SELECT sum(a) OVER w FROM ep_t;
SELECT a, count(*) FROM ep_t GROUP BY b;
SELECT ep_t.a AS x, count(*) FROM ep_t GROUP BY b;
SELECT a FROM ep_t GROUP BY 5;
SELECT a FROM ep_t ORDER BY 5;
-- casts and literals
SELECT 'x'::int;
SELECT '2020-13-45'::date;
SELECT 1::date;
SELECT a::date FROM ep_t;
SELECT 1 WHERE 1 = 'x';
SELECT ep_t FROM ep_t WHERE ep_t.a = 'x';
SELECT date 'garbage';
INSERT INTO ep_t (a) VALUES ('x');
UPDATE ep_t SET a = 'x';
UPDATE ep_t SET a = b;
-- conditions
SELECT a FROM ep_t WHERE b;
SELECT a FROM ep_t WHERE (b);
SELECT a FROM ep_t WHERE 'x';
SELECT 1 FROM ep_t HAVING b;
-- position in a longer text: lines, tabs, multibyte characters, several statements
SELECT 1 FROM ep_t
  WHERE nosuch = 1;
SELECT a FROM ep_t
WHERE
	b = 1;
SELECT 'é', 'ü', nosuch;
SELECT 1 \; SELECT nosuch;
-- inside other statements
EXPLAIN SELECT nosuch FROM ep_t;
PREPARE ep_p AS SELECT nosuch FROM ep_t;
COPY (SELECT nosuch FROM ep_t) TO STDOUT;
CREATE VIEW ep_v AS SELECT nosuch FROM ep_t;
CREATE TABLE ep_x (a int DEFAULT 'x'::int);
CREATE TABLE ep_x (a int CHECK (a > 'x'));
-- errors PostgreSQL raises without a position
CREATE TABLE ep_r (a int REFERENCES nosuch);
COPY ep_t (nosuch) TO STDOUT;
SELECT * FROM ep_t t1 JOIN ep_t t2 USING (nosuch);
SELECT 1 / 0;
SELECT a FROM ep_t LIMIT -1;
-- a column's length or precision is applied after the literal is read: no position
CREATE TABLE ep_m (c char(2), v varchar(2), n numeric(3,1), i int);
INSERT INTO ep_m (c) VALUES ('abc');
INSERT INTO ep_m (v) VALUES ('abc');
INSERT INTO ep_m (n) VALUES ('1234');
INSERT INTO ep_m (i) VALUES ('99999999999');
INSERT INTO ep_m (i) VALUES (99999999999);
INSERT INTO ep_m VALUES ('a', 'b', 1, 1);
UPDATE ep_m SET v = 'abcd';
SELECT count(*) FROM ep_m GROUP BY c ORDER BY v;
SELECT DISTINCT ON (n) count(*) FROM ep_m GROUP BY c;
SELECT concat(VARIADIC 1);
DROP TABLE ep_m;
-- parse errors
SELECT 1 +;
SELECT a FROM ep_t WHERE;
DROP TABLE ep_t, ep_u;
