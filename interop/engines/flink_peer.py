"""Flink peer of the interop harness: runs SQL steps (see steps.py) in one
PyFlink session (a local mini-cluster, parallelism 1) against a Paimon
filesystem catalog on the spec's warehouse.

    python flink_peer.py STEPS.json

The Paimon Flink jar and flink-shaded-hadoop-2-uber must be in PyFlink's lib
directory (scripts/install-engines.sh links them there), on the class path of
the JVM that runs the MiniCluster, so that no job ships them.

The session starts one Flink MiniCluster for the whole run and submits every
job to it (execution.target remote), which spares each statement a cluster
start. Rows are taken from Flink's Java iterator and converted here from the
Java values (PyFlink's own row conversion drops sub-millisecond timestamp
digits and fails on TIMESTAMP_LTZ, ARRAY, MAP and ROW values).

A step with "streaming": true runs its SELECT in streaming mode; after
"ready_after" rows it prints READY on standard output (the Go test then
commits), and it stops after "total" rows, which it writes to "out".
"""

import glob
import os
import sys

import steps

import decimal

from py4j.java_gateway import JavaObject
from py4j.java_collections import JavaArray, JavaList, JavaMap
from pyflink.java_gateway import get_gateway
from pyflink.table import EnvironmentSettings, TableEnvironment


def _to_dict(v, names):
    if isinstance(v, dict):
        return v
    return dict(zip(names, list(v)))


class Converter:
    """Turns Flink's external Java values into the Python values steps.py formats."""

    def __init__(self, jvm):
        self.utc = jvm.java.time.ZoneOffset.UTC

    def __call__(self, v):
        if v is None or isinstance(v, (bool, int, float, str)):
            return v
        if isinstance(v, (bytes, bytearray)):
            return bytes(v)
        if isinstance(v, JavaMap):
            return [[self(e.getKey()), self(e.getValue())] for e in v.entrySet()]
        if isinstance(v, (JavaArray, JavaList)):
            return [self(x) for x in v]
        if isinstance(v, JavaObject):
            cls = v.getClass().getName()
            if cls == "java.math.BigDecimal":
                return decimal.Decimal(v.toPlainString())
            if cls == "java.time.LocalDateTime":  # nanoseconds since the epoch, wall clock
                return v.toEpochSecond(self.utc) * 1_000_000_000 + v.getNano()
            if cls == "java.time.Instant":
                return v.getEpochSecond() * 1_000_000_000 + v.getNano()
            if cls == "java.time.LocalDate":
                return v.toEpochDay()
            if cls == "java.time.LocalTime":  # milliseconds of the day
                return v.toNanoOfDay() // 1_000_000
            if cls == "org.apache.flink.types.Row":
                return [self(v.getField(i)) for i in range(v.getArity())]
            if cls.startswith("["):  # a primitive array py4j did not convert
                return [self(x) for x in v]
            return v.toString()
        return v


class FlinkSession:
    def __init__(self, warehouse):
        import pyflink
        lib = os.path.join(os.path.dirname(pyflink.__file__), "lib")
        if not glob.glob(os.path.join(lib, "paimon-flink-*.jar")):
            raise SystemExit("no paimon-flink jar in %s (run scripts/install-engines.sh)" % lib)
        self.warehouse = warehouse
        jvm = get_gateway().jvm
        self.convert = Converter(jvm)
        conf = jvm.java.util.HashMap()
        conf.put("rest.bind-port", "0")
        conf.put("rest.address", "localhost")
        mcc = (jvm.org.apache.flink.runtime.minicluster.MiniClusterConfiguration.Builder()
               .setConfiguration(jvm.org.apache.flink.configuration.Configuration.fromMap(conf))
               .setNumTaskManagers(1).setNumSlotsPerTaskManager(4).build())
        self.cluster = jvm.org.apache.flink.runtime.minicluster.MiniCluster(mcc)
        self.cluster.start()
        self.rest = self.cluster.getRestAddress().get()
        self.batch = self._env(EnvironmentSettings.in_batch_mode())
        self.stream = None

    def _env(self, settings):
        env = TableEnvironment.create(settings)
        c = env.get_config()
        c.set("parallelism.default", "1")
        c.set("table.dml-sync", "true")
        c.set("table.local-time-zone", "UTC")
        c.set("execution.target", "remote")
        c.set("rest.address", self.rest.getHost())
        c.set("rest.port", str(self.rest.getPort()))
        # CALL procedures (sys.compact) run their job on a cluster of their
        # own, which must not bind the port of ours.
        c.set("rest.bind-port", "0")
        env.execute_sql("CREATE CATALOG paimon WITH ('type'='paimon', 'warehouse'='file://%s')" % self.warehouse).wait()
        env.execute_sql("USE CATALOG paimon").wait()
        env.execute_sql("CREATE DATABASE IF NOT EXISTS interop").wait()
        env.execute_sql("USE interop").wait()
        return env

    def _query(self, step, spec):
        if "scan" not in step:
            return step["sql"]
        db, table = step["scan"].split(".")
        return "SELECT * FROM `%s`.`%s` %s" % (db, table, step.get("hint", ""))

    def run(self, step, spec):
        sql = self._query(step, spec)
        if step.get("streaming"):
            return self._stream(step, sql)
        result = self.batch.execute_sql(sql)
        if "out" not in step:
            result.wait()
            return
        names = result.get_table_schema().get_field_names()
        rows = []
        it = result._j_table_result.collect()
        try:
            while it.hasNext():
                rows.append(self._row(it.next()))
        finally:
            it.close()
        steps.write_rows(step, names, rows, _to_dict)

    def _row(self, r):
        return [self.convert(r.getField(i)) for i in range(r.getArity())]

    def close(self):
        self.cluster.close()

    def _stream(self, step, sql):
        if self.stream is None:
            self.stream = self._env(EnvironmentSettings.in_streaming_mode())
        result = self.stream.execute_sql(sql)
        names = result.get_table_schema().get_field_names()
        rows = []
        it = result._j_table_result.collect()
        try:
            if step.get("ready_after", 0) == 0:
                print("READY", flush=True)
            while len(rows) < step["total"] and it.hasNext():
                rows.append(self._row(it.next()))
                if len(rows) == step.get("ready_after", 0):
                    print("READY", flush=True)
        finally:
            it.close()
        steps.write_rows(step, names, rows, _to_dict)


def main():
    spec = steps.load(sys.argv[1])
    session = FlinkSession(spec["warehouse"])
    try:
        steps.run(sys.argv[1], session)
    finally:
        session.close()


if __name__ == "__main__":
    main()
