-- The legacy API is gone (the Network API's records are in 0003's network_* tables):
-- drop the tables 0002 created for it, with their indexes. Children first, so the
-- foreign keys between them (fills → orders, prescriptions → patients) never object.
-- The catalog is in memory now; medications and pharmacies were only the legacy
-- API's copy.

DROP TABLE IF EXISTS fills;
DROP TABLE IF EXISTS orders;
DROP TABLE IF EXISTS prescriptions;
DROP TABLE IF EXISTS patients;
DROP TABLE IF EXISTS pharmacies;
DROP TABLE IF EXISTS medications;
