package org.paimongo.interop;

import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.Identifier;

/**
 * One Java-written table of the scenario set: {@link #run} creates the table {@code id} in the
 * catalog and evolves it with anything Java's API allows (commits, ALTER TABLE through {@link
 * Catalog#alterTable}, compactions). The harness then reads the table with Java at every snapshot
 * and at the latest, and paimon-go must read exactly the same rows (or fail where Java fails).
 */
interface Scenario {
    /** The table name, unique within {@link Scenarios#all}. */
    String name();

    /** Creates and writes the table {@code id}. */
    void run(Catalog catalog, Identifier id) throws Exception;
}
