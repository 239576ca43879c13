-- The CH dataset's tables in PostgreSQL, for the independent answer check (TestCHAnswersMatchPostgres). Strings are
-- citext: MariaDB's default collation (utf8mb4_general_ci) compares, groups and matches LIKE without case, and
-- citext does the same, so the queries run unchanged.
CREATE EXTENSION IF NOT EXISTS citext;
CREATE TABLE warehouse (w_id int, w_name citext, w_street_1 citext, w_street_2 citext, w_city citext, w_state citext,
  w_zip citext, w_tax numeric(4,4), w_ytd numeric(12,2));
CREATE TABLE district (d_id int, d_w_id int, d_name citext, d_street_1 citext, d_street_2 citext, d_city citext,
  d_state citext, d_zip citext, d_tax numeric(4,4), d_ytd numeric(12,2), d_next_o_id int);
CREATE TABLE customer (c_id int, c_d_id int, c_w_id int, c_first citext, c_middle citext, c_last citext,
  c_street_1 citext, c_street_2 citext, c_city citext, c_state citext, c_zip citext, c_phone citext, c_since timestamp,
  c_credit citext, c_credit_lim numeric(12,2), c_discount numeric(4,4), c_balance numeric(12,2),
  c_ytd_payment numeric(12,2), c_payment_cnt int, c_delivery_cnt int, c_data citext);
CREATE TABLE history (h_c_id int, h_c_d_id int, h_c_w_id int, h_d_id int, h_w_id int, h_date timestamp,
  h_amount numeric(6,2), h_data citext);
CREATE TABLE new_order (no_o_id int, no_d_id int, no_w_id int);
CREATE TABLE orders (o_id int, o_d_id int, o_w_id int, o_c_id int, o_entry_d timestamp, o_carrier_id int,
  o_ol_cnt int, o_all_local int);
CREATE TABLE order_line (ol_o_id int, ol_d_id int, ol_w_id int, ol_number int, ol_i_id int, ol_supply_w_id int,
  ol_delivery_d timestamp, ol_quantity int, ol_amount numeric(6,2), ol_dist_info citext);
CREATE TABLE item (i_id int, i_im_id int, i_name citext, i_price numeric(5,2), i_data citext);
CREATE TABLE stock (s_i_id int, s_w_id int, s_quantity int, s_dist_01 citext, s_dist_02 citext, s_dist_03 citext,
  s_dist_04 citext, s_dist_05 citext, s_dist_06 citext, s_dist_07 citext, s_dist_08 citext, s_dist_09 citext,
  s_dist_10 citext, s_ytd int, s_order_cnt int, s_remote_cnt int, s_data citext);
CREATE TABLE region (r_regionkey bigint, r_name citext, r_comment citext);
CREATE TABLE nation (n_nationkey bigint, n_name citext, n_regionkey bigint, n_comment citext);
CREATE TABLE supplier (s_suppkey bigint, s_name citext, s_address citext, s_nationkey bigint, s_phone citext,
  s_acctbal numeric(15,2), s_comment citext);
