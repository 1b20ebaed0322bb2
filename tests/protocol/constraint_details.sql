-- Constraint violations' DETAIL lines, which print the values as each type's output function
-- does: enum labels (not their sort positions), dates, numerics with their scale, booleans,
-- arrays, NULL as null. Run by tests/protocol/error_positions.sh, DETAIL lines compared.
CREATE TYPE dc_color AS ENUM ('red', 'green', 'blue');
CREATE TABLE dc_parent (c dc_color PRIMARY KEY);
INSERT INTO dc_parent VALUES ('red');
CREATE TABLE dc_child (c dc_color REFERENCES dc_parent, n numeric(6,2), d date, b boolean);
INSERT INTO dc_child VALUES ('blue', 1, '2024-01-02', true);
INSERT INTO dc_parent VALUES ('red');
INSERT INTO dc_child VALUES ('red', 1.5, '2024-01-02', true);
DELETE FROM dc_parent;
UPDATE dc_parent SET c = 'green';
CREATE TABLE dc_keys (c dc_color, n numeric(6,2), d date, b boolean, a dc_color[], t text[],
  UNIQUE (c, n, d, b), UNIQUE (a), UNIQUE (t));
INSERT INTO dc_keys VALUES ('green', 2.5, '2024-03-04', false, '{red,blue}', '{x,"y z"}');
INSERT INTO dc_keys VALUES ('green', 2.50, '2024-03-04', false, NULL, NULL);
INSERT INTO dc_keys VALUES ('red', 1, NULL, NULL, '{red,blue}', NULL);
INSERT INTO dc_keys VALUES ('red', 1, NULL, NULL, NULL, '{x,"y z"}');
CREATE TABLE dc_checked (c dc_color CHECK (c <> 'blue'), n numeric(6,2), a dc_color[] NOT NULL);
INSERT INTO dc_checked VALUES ('blue', 3, '{green}');
INSERT INTO dc_checked VALUES ('red', 3, NULL);
CREATE TABLE dc_dups (c dc_color, a dc_color[]);
INSERT INTO dc_dups VALUES ('blue', '{blue}'), ('blue', '{blue}');
CREATE UNIQUE INDEX dc_dups_c ON dc_dups (c);
ALTER TABLE dc_dups ADD UNIQUE (a);
CREATE DOMAIN dc_shade AS dc_color;
CREATE TABLE dc_shaded (s dc_shade UNIQUE);
INSERT INTO dc_shaded VALUES ('green'), ('green');
