-- TPC-H's tables for PostgreSQL, the independent engine the answers are checked against.
CREATE TABLE part (p_partkey BIGINT PRIMARY KEY, p_name VARCHAR(55), p_mfgr VARCHAR(25), p_brand VARCHAR(10), p_type VARCHAR(25),
  p_size INT, p_container VARCHAR(10), p_retailprice DECIMAL(15,2), p_comment VARCHAR(23));
CREATE TABLE supplier (s_suppkey BIGINT PRIMARY KEY, s_name VARCHAR(25), s_address VARCHAR(40), s_nationkey BIGINT,
  s_phone VARCHAR(15), s_acctbal DECIMAL(15,2), s_comment VARCHAR(101));
CREATE TABLE partsupp (ps_partkey BIGINT, ps_suppkey BIGINT, ps_availqty INT, ps_supplycost DECIMAL(15,2),
  ps_comment VARCHAR(199), PRIMARY KEY (ps_partkey, ps_suppkey));
CREATE TABLE customer (c_custkey BIGINT PRIMARY KEY, c_name VARCHAR(25), c_address VARCHAR(40), c_nationkey BIGINT,
  c_phone VARCHAR(15), c_acctbal DECIMAL(15,2), c_mktsegment VARCHAR(10), c_comment VARCHAR(117));
CREATE TABLE orders (o_orderkey BIGINT PRIMARY KEY, o_custkey BIGINT, o_orderstatus VARCHAR(1), o_totalprice DECIMAL(15,2),
  o_orderdate DATE, o_orderpriority VARCHAR(15), o_clerk VARCHAR(15), o_shippriority INT, o_comment VARCHAR(79));
CREATE TABLE lineitem (l_orderkey BIGINT, l_partkey BIGINT, l_suppkey BIGINT, l_linenumber INT, l_quantity DECIMAL(15,2),
  l_extendedprice DECIMAL(15,2), l_discount DECIMAL(15,2), l_tax DECIMAL(15,2), l_returnflag VARCHAR(1), l_linestatus VARCHAR(1),
  l_shipdate DATE, l_commitdate DATE, l_receiptdate DATE, l_shipinstruct VARCHAR(25), l_shipmode VARCHAR(10), l_comment VARCHAR(44),
  PRIMARY KEY (l_orderkey, l_linenumber));
CREATE INDEX ON lineitem (l_partkey, l_suppkey);
CREATE TABLE nation (n_nationkey BIGINT PRIMARY KEY, n_name VARCHAR(25), n_regionkey BIGINT, n_comment VARCHAR(152));
CREATE TABLE region (r_regionkey BIGINT PRIMARY KEY, r_name VARCHAR(25), r_comment VARCHAR(152));
