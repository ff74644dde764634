package kafka_test

import (
	"context"
	"fmt"
	"os"
	"os/signal"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/kafka"
	"github.com/fleetkit/catalogue/schemas"
)

// A record's value in the registry wire format: the frame, then the
// message.
func ExampleAppendFrame() {
	s, _ := schemas.Lookup("core.device", "1.0")
	value := kafka.AppendFrame(nil, s.RegistryID)
	value = append(value, `{"message_id":"..."}`...)
	fmt.Printf("% x\n", value[:kafka.FrameSize])
	// Output: 00 00 00 00 02
}

// Record makes the record of a message, keyed by its entity's id.
func ExampleRecord() {
	m, err := catalogue.Decode([]byte(`{"message_id":"0b9d6a52-3c47-4f0e-8e1d-7a6c5b4e3f21","message_type":"core.device","source_id":"dev-0001","source_type":"tracker","tenant_id":"club-1","time":"2026-03-01T08:00:00Z","device_id":"5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44","external_id":"ext-0001"}`))
	if err != nil {
		panic(err)
	}
	r, err := kafka.Record("fleet.devices", m, true)
	if err != nil {
		panic(err)
	}
	fmt.Printf("key %s\n", r.Key)
	for _, h := range r.Headers {
		fmt.Printf("%s: %s\n", h.Key, h.Value)
	}
	fmt.Printf("value % x ...\n", r.Value[:6])
	// Output:
	// key 5f0c3a5e-8f5b-4c1e-9a39-0d2b7c9e1a44
	// content-type: application/json
	// ce_specversion: 1.0
	// ce_id: 0b9d6a52-3c47-4f0e-8e1d-7a6c5b4e3f21
	// ce_type: core.device
	// ce_source: /tenants/club-1/sources/tracker/dev-0001
	// ce_time: 2026-03-01T08:00:00Z
	// ce_dataschema: https://catalogue.fleetkit.dev/api/schemas/core.device/versions/1.0
	// value 00 00 00 00 02 7b ...
}

// A gate that makes its own sessions starts again on a new one when its
// brokers are lost while it ends a transaction.
func ExampleGate_newSession() {
	g := &kafka.Gate{
		NewSession: func() (*kgo.GroupTransactSession, error) {
			// A batch of the input decompresses to at most 32 MiB, a
			// fetch to less than 64 MiB, whatever its producers wrote.
			bounded, err := kafka.BoundedFetches(32 << 20)
			if err != nil {
				return nil, err
			}
			return kgo.NewGroupTransactSession(append([]kgo.Opt{kgo.SeedBrokers("127.0.0.1:9092"),
				kgo.ConsumerGroup("catalogue-gate"), kgo.ConsumeTopics("fleet.in"),
				kgo.TransactionalID("catalogue-gate-1"), kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords()},
				bounded...)...)
		},
		Output:      "fleet.valid",
		DeadLetters: "fleet.dead",
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	st, err := g.Run(ctx)
	fmt.Println(st, err)
}
