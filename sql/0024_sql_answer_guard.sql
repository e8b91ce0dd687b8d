-- SQL over HTTP (docs/sql.md) bounds the bytes of an answer, not only its rows: a query can
-- make a value of hundreds of megabytes from a short text (`replace`, `concat`, `repeat` of
-- a literal), and an answer that large would hold the database and the process's memory
-- (on the embedded database, the whole service's) long before its rows reach the cap. The
-- runner (src/api/launchpad/sql/run.ts) adds up each row's values as they come and passes
-- the running total through this function, which ends the query once it is over `cap`.
CREATE FUNCTION sql_answer_guard(bytes bigint, cap bigint) RETURNS bigint
LANGUAGE plpgsql AS $$
BEGIN
  IF bytes > cap THEN
    RAISE EXCEPTION 'the answer is over % bytes: ask for fewer rows or columns, or shorter values', cap
      USING ERRCODE = 'program_limit_exceeded';
  END IF;
  RETURN bytes;
END
$$;
