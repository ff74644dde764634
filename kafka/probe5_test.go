package kafka_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/fleetkit/catalogue/gate"
	"github.com/fleetkit/catalogue/kafka"
)

func TestProbe5OffsetFetchGroupAuth(t *testing.T) {
	c, addrs := newCluster(t, 3)
	produceInput(t, addrs, 200)
	c.ControlKey(int16(kmsg.OffsetFetch), func(kr kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := kr.(*kmsg.OffsetFetchRequest)
		resp := req.ResponseKind().(*kmsg.OffsetFetchResponse)
		resp.Version = req.Version
		if req.Version >= 8 {
			for _, g := range req.Groups {
				rg := kmsg.NewOffsetFetchResponseGroup()
				rg.Group = g.Group
				rg.ErrorCode = kerr.GroupAuthorizationFailed.Code
				resp.Groups = append(resp.Groups, rg)
			}
		} else {
			resp.ErrorCode = kerr.GroupAuthorizationFailed.Code
		}
		return resp, nil, true
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	st, err := (&kafka.Gate{Session: gateSession(t, addrs), Output: outTopic, DeadLetters: deadTopic, UntilIdle: true,
		Log: slog.New(slog.NewTextHandler(testWriter{t}, nil))}).Run(ctx)
	t.Logf("RESULT elapsed=%v err=%v st=%+v", time.Since(start), err, st)
}

func TestProbe5OutputPartitionsAdded(t *testing.T) {
	_, addrs := newCluster(t, 3)
	valid := produceInput(t, addrs, 200)
	g := startGate(t, addrs)
	g.until(200)
	resp, err := kadm.NewClient(readerClient(t, addrs)).CreatePartitions(context.Background(), 3, outTopic, deadTopic)
	require.NoError(t, err)
	require.NoError(t, resp.Error())
	_, lines := samples(t)
	var more []*kgo.Record
	for i := 200; i < 400; i++ {
		r, ok := input(t, lines, i)
		more = append(more, r)
		valid = append(valid, ok)
	}
	require.NoError(t, readerClient(t, addrs).ProduceSync(context.Background(), more...).FirstErr())
	st := g.until(400)
	require.NoError(t, g.stop())
	t.Logf("RESULT %+v", st)
	checkExactlyOnce(t, addrs, valid)
}

func TestProbe5OutputDeleted(t *testing.T) {
	_, addrs := newCluster(t, 3)
	produceInput(t, addrs, 200)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sess := gateSession(t, addrs)
	n := 0
	g := &kafka.Gate{Session: sess, Output: outTopic, DeadLetters: deadTopic, Batch: 20,
		Log: slog.New(slog.NewTextHandler(testWriter{t}, nil))}
	adm := kadm.NewClient(readerClient(t, addrs))
	g.Progress = func(s gate.Stats) {
		n++
		if n == 3 {
			_, err := adm.DeleteTopics(context.Background(), outTopic)
			require.NoError(t, err)
		}
	}
	start := time.Now()
	st, err := g.Run(ctx)
	t.Logf("RESULT elapsed=%v err=%v st=%+v", time.Since(start), err, st)
}

func TestProbe5EndTxnNeverAnswered(t *testing.T) {
	c, addrs := newCluster(t, 3)
	valid := produceInput(t, addrs, 500)
	var held bool
	c.ControlKey(int16(kmsg.EndTxn), func(kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if held {
			return nil, nil, false
		}
		held = true
		c.SleepControl(func() { time.Sleep(time.Hour) })
		return nil, nil, false
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := time.Now()
	st, err := (&kafka.Gate{NewSession: func() (*kgo.GroupTransactSession, error) { return gateSession(t, addrs), nil }, Output: outTopic, DeadLetters: deadTopic, UntilIdle: true, Batch: 50,
		Log: slog.New(slog.NewTextHandler(testWriter{t}, nil))}).Run(ctx)
	t.Logf("RESULT elapsed=%v err=%v st=%+v", time.Since(start), err, st)
	checkExactlyOnce(t, addrs, valid)
}
