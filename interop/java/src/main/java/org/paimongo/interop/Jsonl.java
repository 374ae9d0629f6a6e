package org.paimongo.interop;

import org.apache.paimon.data.DataGetters;
import org.apache.paimon.data.InternalArray;
import org.apache.paimon.data.InternalMap;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.LocalZonedTimestampType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.MultisetType;
import org.apache.paimon.types.RowType;
import org.apache.paimon.types.TimeType;
import org.apache.paimon.types.TimestampType;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import java.util.Locale;

/**
 * Formats Paimon rows as JSON Lines in the format of {@code paimon cat --format jsonl} (Go
 * package rowfmt): keys are column names in column order; DECIMAL is a string with exactly the
 * column's scale; BINARY/VARBINARY padded base64; DATE {@code YYYY-MM-DD}; TIME(p)/TIMESTAMP(p)
 * with p fractional digits (3, 6 or 9 when the value has non-zero digits beyond p); WITH LOCAL
 * TIME ZONE adds {@code Z}; MAP/MULTISET are arrays of [key, value]; ROW is an object; FLOAT and
 * DOUBLE print the shortest decimal that round-trips the value's own width; NaN and infinities
 * are the strings "NaN", "Infinity", "-Infinity".
 */
final class Jsonl {
    private Jsonl() {}

    /** Returns one row of the given row type as a JSON object (no newline). */
    static String row(RowType type, DataGetters row) {
        StringBuilder sb = new StringBuilder();
        appendRow(sb, type.getFields(), row);
        return sb.toString();
    }

    private static void appendRow(StringBuilder sb, List<DataField> fields, DataGetters row) {
        sb.append('{');
        for (int i = 0; i < fields.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            quote(sb, fields.get(i).name());
            sb.append(':');
            value(sb, fields.get(i).type(), row, i);
        }
        sb.append('}');
    }

    private static void value(StringBuilder sb, DataType t, DataGetters g, int i) {
        if (g.isNullAt(i)) {
            sb.append("null");
            return;
        }
        switch (t.getTypeRoot()) {
            case BOOLEAN:
                sb.append(g.getBoolean(i));
                break;
            case TINYINT:
                sb.append(g.getByte(i));
                break;
            case SMALLINT:
                sb.append(g.getShort(i));
                break;
            case INTEGER:
                sb.append(g.getInt(i));
                break;
            case BIGINT:
                sb.append(g.getLong(i));
                break;
            case FLOAT:
                floating(sb, g.getFloat(i), true);
                break;
            case DOUBLE:
                floating(sb, g.getDouble(i), false);
                break;
            case CHAR:
            case VARCHAR:
                quote(sb, g.getString(i).toString());
                break;
            case BINARY:
            case VARBINARY:
                quote(sb, Base64.getEncoder().encodeToString(g.getBinary(i)));
                break;
            case DECIMAL:
                {
                    DecimalType d = (DecimalType) t;
                    BigDecimal v =
                            g.getDecimal(i, d.getPrecision(), d.getScale()).toBigDecimal();
                    quote(sb, v.setScale(d.getScale()).toPlainString());
                    break;
                }
            case DATE:
                quote(sb, LocalDate.ofEpochDay(g.getInt(i)).toString());
                break;
            case TIME_WITHOUT_TIME_ZONE:
                {
                    long nanos = g.getInt(i) * 1_000_000L;
                    long secs = nanos / 1_000_000_000L;
                    String s =
                            String.format(
                                    Locale.ROOT,
                                    "%02d:%02d:%02d",
                                    secs / 3600,
                                    secs / 60 % 60,
                                    secs % 60);
                    quote(sb, s + fraction(nanos % 1_000_000_000L, ((TimeType) t).getPrecision()));
                    break;
                }
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                {
                    int p = ((TimestampType) t).getPrecision();
                    quote(sb, timestamp(g.getTimestamp(i, p), p, false));
                    break;
                }
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                {
                    int p = ((LocalZonedTimestampType) t).getPrecision();
                    quote(sb, timestamp(g.getTimestamp(i, p), p, true));
                    break;
                }
            case ARRAY:
                {
                    DataType elem = ((ArrayType) t).getElementType();
                    InternalArray a = g.getArray(i);
                    sb.append('[');
                    for (int j = 0; j < a.size(); j++) {
                        if (j > 0) {
                            sb.append(',');
                        }
                        value(sb, elem, a, j);
                    }
                    sb.append(']');
                    break;
                }
            case MAP:
                {
                    MapType m = (MapType) t;
                    pairs(sb, g.getMap(i), m.getKeyType(), m.getValueType());
                    break;
                }
            case MULTISET:
                pairs(
                        sb,
                        g.getMap(i),
                        ((MultisetType) t).getElementType(),
                        new org.apache.paimon.types.IntType(false));
                break;
            case ROW:
                {
                    RowType r = (RowType) t;
                    appendRow(sb, r.getFields(), g.getRow(i, r.getFieldCount()));
                    break;
                }
            case VARIANT:
                // Variant.toJson (UTC), as a JSON string.
                quote(sb, g.getVariant(i).toJson());
                break;
            default:
                throw new IllegalArgumentException("unsupported type " + t);
        }
    }

    private static void pairs(StringBuilder sb, InternalMap m, DataType kt, DataType vt) {
        InternalArray keys = m.keyArray();
        InternalArray values = m.valueArray();
        sb.append('[');
        for (int j = 0; j < m.size(); j++) {
            if (j > 0) {
                sb.append(',');
            }
            sb.append('[');
            value(sb, kt, keys, j);
            sb.append(',');
            value(sb, vt, values, j);
            sb.append(']');
        }
        sb.append(']');
    }

    /** Shortest decimal (as a JSON number) that parses back to v at its own width. */
    private static void floating(StringBuilder sb, double v, boolean single) {
        if (Double.isNaN(v)) {
            quote(sb, "NaN");
            return;
        }
        if (Double.isInfinite(v)) {
            quote(sb, v > 0 ? "Infinity" : "-Infinity");
            return;
        }
        int max = single ? 9 : 17;
        for (int digits = 1; digits <= max; digits++) {
            String s = String.format(Locale.ROOT, "%." + digits + "g", v);
            boolean same =
                    single ? Float.parseFloat(s) == (float) v : Double.parseDouble(s) == v;
            if (same || digits == max) {
                BigDecimal d = new BigDecimal(s.trim());
                sb.append(d.signum() == 0 ? "0" : d.stripTrailingZeros().toString());
                return;
            }
        }
    }

    static String timestamp(Timestamp ts, int p, boolean ltz) {
        long millis = ts.getMillisecond();
        long secs = Math.floorDiv(millis, 1000L);
        long nanos = Math.floorMod(millis, 1000L) * 1_000_000L + ts.getNanoOfMillisecond();
        LocalDateTime wall = LocalDateTime.ofEpochSecond(secs, 0, ZoneOffset.UTC);
        String s =
                String.format(
                        Locale.ROOT,
                        "%04d-%02d-%02dT%02d:%02d:%02d",
                        wall.getYear(),
                        wall.getMonthValue(),
                        wall.getDayOfMonth(),
                        wall.getHour(),
                        wall.getMinute(),
                        wall.getSecond());
        return s + fraction(nanos, p) + (ltz ? "Z" : "");
    }

    /** Fractional digits of nanos (0..999999999) at precision p, per the rowfmt rule. */
    private static String fraction(long nanos, int p) {
        String digits = String.format(Locale.ROOT, "%09d", nanos);
        int n = p;
        if (!allZero(digits.substring(p))) {
            for (int x : new int[] {3, 6, 9}) {
                if (x >= p && allZero(digits.substring(x))) {
                    n = x;
                    break;
                }
            }
        }
        return n > 0 ? "." + digits.substring(0, n) : "";
    }

    private static boolean allZero(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) != '0') {
                return false;
            }
        }
        return true;
    }

    static void quote(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"':
                    sb.append("\\\"");
                    break;
                case '\\':
                    sb.append("\\\\");
                    break;
                case '\n':
                    sb.append("\\n");
                    break;
                case '\r':
                    sb.append("\\r");
                    break;
                case '\t':
                    sb.append("\\t");
                    break;
                default:
                    if (c < 0x20) {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
            }
        }
        sb.append('"');
    }

    static String quote(String s) {
        StringBuilder sb = new StringBuilder();
        quote(sb, s);
        return sb.toString();
    }
}
