"""Spark peer of the interop harness: runs SQL steps (see steps.py) in one
local PySpark session (local[1]) with Paimon's SparkCatalog on the spec's
warehouse and Paimon's SQL extensions (UPDATE, DELETE, MERGE INTO, CALL).

    python spark_peer.py STEPS.json

Environment: PAIMON_ENGINES_JARS, the directory holding the Paimon Spark jar
(scripts/install-engines.sh: $DIR/jars/spark). The session time zone and the
Python process's are UTC, so timestamps come back as UTC wall clock.
"""

import glob
import os
import sys
import time

os.environ["TZ"] = "UTC"
time.tzset()

import steps  # noqa: E402

from pyspark.sql import SparkSession  # noqa: E402


def _to_dict(v, names):
    if isinstance(v, dict):
        return v
    try:
        return v.asDict()
    except Exception:  # noqa: BLE001 - a plain sequence
        return dict(zip(names, list(v)))


class SparkSessionPeer:
    def __init__(self, warehouse):
        jars = sorted(glob.glob(os.path.join(os.environ["PAIMON_ENGINES_JARS"], "*.jar")))
        if not jars:
            raise SystemExit("no jar in PAIMON_ENGINES_JARS=%s" % os.environ.get("PAIMON_ENGINES_JARS"))
        self.spark = (
            SparkSession.builder.master("local[1]")
            .appName("paimon-go-interop")
            .config("spark.jars", ",".join(jars))
            .config("spark.sql.catalog.paimon", "org.apache.paimon.spark.SparkCatalog")
            .config("spark.sql.catalog.paimon.warehouse", "file://" + warehouse)
            .config("spark.sql.extensions", "org.apache.paimon.spark.extensions.PaimonSparkSessionExtensions")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.shuffle.partitions", "1")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC")
            .getOrCreate()
        )
        self.spark.sparkContext.setLogLevel("ERROR")
        self.spark.sql("USE paimon")
        self.spark.sql("CREATE DATABASE IF NOT EXISTS interop")
        self.spark.sql("USE interop")

    def run(self, step, spec):
        if "scan" in step:
            db, table = step["scan"].split(".")
            sql = "SELECT * FROM `%s`.`%s` %s" % (db, table, step.get("hint", ""))
        else:
            sql = step["sql"]
        df = self.spark.sql(sql)
        if "out" not in step:
            df.collect()
            return
        names = df.columns
        rows = [list(r) for r in df.collect()]
        steps.write_rows(step, names, rows, _to_dict)


def main():
    spec = steps.load(sys.argv[1])
    steps.run(sys.argv[1], SparkSessionPeer(spec["warehouse"]))


if __name__ == "__main__":
    main()
