package org.paimongo.interop;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.RowType;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/** Converts rows in the JSONL format of {@link Jsonl} back to Paimon rows (scalar types). */
final class Rows {
    private Rows() {}

    static GenericRow fromJson(RowType type, Object json) {
        if (!(json instanceof Map)) {
            throw new IllegalArgumentException("row is not a JSON object: " + json);
        }
        Map<?, ?> m = (Map<?, ?>) json;
        List<DataField> fields = type.getFields();
        GenericRow r = new GenericRow(fields.size());
        for (int i = 0; i < fields.size(); i++) {
            DataField f = fields.get(i);
            if (!m.containsKey(f.name())) {
                throw new IllegalArgumentException("row lacks column " + f.name() + ": " + json);
            }
            r.setField(i, value(f.type(), m.get(f.name())));
        }
        return r;
    }

    private static Object value(DataType t, Object v) {
        if (v == null) {
            return null;
        }
        switch (t.getTypeRoot()) {
            case BOOLEAN:
                return (Boolean) v;
            case TINYINT:
                return ((BigDecimal) v).byteValueExact();
            case SMALLINT:
                return ((BigDecimal) v).shortValueExact();
            case INTEGER:
                return ((BigDecimal) v).intValueExact();
            case BIGINT:
                return ((BigDecimal) v).longValueExact();
            case FLOAT:
                return v instanceof String ? Float.parseFloat(special((String) v)) : ((BigDecimal) v).floatValue();
            case DOUBLE:
                return v instanceof String ? Double.parseDouble(special((String) v)) : ((BigDecimal) v).doubleValue();
            case CHAR:
            case VARCHAR:
                return BinaryString.fromString((String) v);
            case BINARY:
            case VARBINARY:
                return Base64.getDecoder().decode((String) v);
            case DECIMAL:
                {
                    DecimalType d = (DecimalType) t;
                    return Decimal.fromBigDecimal(new BigDecimal((String) v), d.getPrecision(), d.getScale());
                }
            case DATE:
                return (int) LocalDate.parse((String) v).toEpochDay();
            case TIMESTAMP_WITHOUT_TIME_ZONE:
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                {
                    String s = (String) v;
                    if (s.endsWith("Z")) {
                        s = s.substring(0, s.length() - 1);
                    }
                    return Timestamp.fromLocalDateTime(LocalDateTime.parse(s));
                }
            default:
                throw new IllegalArgumentException("apply supports scalar columns only, not " + t);
        }
    }

    private static String special(String s) {
        return s.equals("Infinity") ? "Infinity" : s.equals("-Infinity") ? "-Infinity" : s;
    }
}
