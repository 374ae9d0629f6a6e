package consumer_test

import (
	"context"
	"fmt"
	"log"

	"github.com/paimon-go/paimon/consumer"
	"github.com/paimon-go/paimon/fileio"
)

// Records two streaming readers' progress in consumer files, as Java's
// consumer-id does (in Java's bytes); expiration keeps every snapshot from the smallest next
// snapshot on.
func Example() {
	ctx := context.Background()
	fio, err := fileio.Open(ctx, "mem://")
	if err != nil {
		log.Fatal(err)
	}
	defer fio.Close()
	m := consumer.New(fio, "")
	if err := m.Write(ctx, "dashboard", 12); err != nil {
		log.Fatal(err)
	}
	if err := m.Write(ctx, "audit", 7); err != nil {
		log.Fatal(err)
	}
	next, _, err := m.Read(ctx, "dashboard")
	if err != nil {
		log.Fatal(err)
	}
	low, _, err := m.MinNextSnapshot(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Path("dashboard"), string(consumer.Encode(next)))
	fmt.Println("expiration keeps snapshots from", low)
	// Output:
	// consumer/consumer-dashboard {
	//   "nextSnapshot" : 12
	// }
	// expiration keeps snapshots from 7
}
