package nats

// Interoperability with the CloudEvents Go SDK. The SDK's NATS and
// JetStream bindings are modules of their own that the module proxy does
// not serve here, so the NATS side goes through the SDK's protocol-neutral
// binding packages: natsMessage and natsWriter below are the few lines a
// binding is, over nats.Header, with the header names of the CloudEvents
// NATS protocol binding (ce- prefix, Content-Type). The HTTP side uses the
// SDK's own HTTP protocol and client.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	cloudevents "github.com/cloudevents/sdk-go/v2"
	"github.com/cloudevents/sdk-go/v2/binding"
	"github.com/cloudevents/sdk-go/v2/binding/spec"
	cehttp "github.com/cloudevents/sdk-go/v2/protocol/http"
	"github.com/cloudevents/sdk-go/v2/types"
	natsgo "github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fleetkit/catalogue"
	"github.com/fleetkit/catalogue/api"
	"github.com/fleetkit/catalogue/ce"
	"github.com/fleetkit/catalogue/device"
	"github.com/fleetkit/catalogue/vehicle"
)

// natsSpecs are the attribute names of the CloudEvents NATS binding.
var natsSpecs = spec.WithPrefix("ce-")

// natsMessage is a NATS message as the SDK reads it, in binary mode.
type natsMessage struct {
	h    natsgo.Header
	data []byte
}

func (m *natsMessage) ReadEncoding() binding.Encoding {
	if natsSpecs.Version(m.h.Get(natsSpecs.PrefixedSpecVersionName())) != nil {
		return binding.EncodingBinary
	}
	return binding.EncodingUnknown
}

func (m *natsMessage) ReadStructured(context.Context, binding.StructuredWriter) error {
	return binding.ErrNotStructured
}

func (m *natsMessage) ReadBinary(ctx context.Context, w binding.BinaryWriter) error {
	version := natsSpecs.Version(m.h.Get(natsSpecs.PrefixedSpecVersionName()))
	if version == nil {
		return binding.ErrNotBinary
	}
	for k, vs := range m.h {
		var err error
		switch attr := version.Attribute(k); {
		case attr != nil:
			err = w.SetAttribute(attr, vs[0])
		case k == "Content-Type":
			err = w.SetAttribute(version.AttributeFromKind(spec.DataContentType), vs[0])
		case strings.HasPrefix(k, "ce-"):
			err = w.SetExtension(k[len("ce-"):], vs[0])
		}
		if err != nil {
			return err
		}
	}
	return w.SetData(bytes.NewReader(m.data))
}

func (m *natsMessage) GetAttribute(k spec.Kind) (spec.Attribute, any) {
	attr := natsSpecs.Version(m.h.Get(natsSpecs.PrefixedSpecVersionName())).AttributeFromKind(k)
	if attr == nil {
		return nil, nil
	}
	key := attr.PrefixedName()
	if k == spec.DataContentType {
		key = "Content-Type"
	}
	if vs := m.h[key]; vs != nil {
		return attr, vs[0]
	}
	return attr, nil
}

func (m *natsMessage) GetExtension(name string) any {
	if vs := m.h["ce-"+name]; vs != nil {
		return vs[0]
	}
	return nil
}

func (m *natsMessage) Finish(error) error { return nil }

// natsWriter writes an SDK message into a NATS message, in binary mode.
type natsWriter struct{ m *natsgo.Msg }

func (w natsWriter) Start(context.Context) error { return nil }
func (w natsWriter) End(context.Context) error   { return nil }

func (w natsWriter) SetAttribute(attr spec.Attribute, value any) error {
	s, err := types.Format(value)
	if err != nil {
		return err
	}
	if attr.Kind() == spec.DataContentType {
		w.m.Header.Set("Content-Type", s)
		return nil
	}
	w.m.Header.Set("ce-"+attr.Name(), s)
	return nil
}

func (w natsWriter) SetExtension(name string, value any) error {
	s, err := types.Format(value)
	if err != nil {
		return err
	}
	w.m.Header.Set("ce-"+name, s)
	return nil
}

func (w natsWriter) SetData(r io.Reader) (err error) {
	w.m.Data, err = io.ReadAll(r)
	return err
}

// sdkEvent returns m as an event the SDK makes, with the attributes of
// decision 14.
func sdkEvent(t *testing.T, m catalogue.Message) cloudevents.Event {
	a, err := ce.AttributesOf(m)
	require.NoError(t, err)
	body, err := m.MarshalJSON()
	require.NoError(t, err)
	e := cloudevents.NewEvent()
	e.SetID(a.ID)
	e.SetType(a.Type)
	e.SetSource(a.Source)
	e.SetTime(a.Time)
	e.SetDataSchema(a.DataSchema)
	require.NoError(t, e.SetData(cloudevents.ApplicationJSON, body))
	require.NoError(t, e.Validate())
	return e
}

// The SDK reads what our publisher sent as a valid CloudEvent, with the
// attributes of decision 14 and the message as its data, byte for byte.
func TestCloudEventsSDKReadsWhatWePublish(t *testing.T) {
	b := startBroker(t)
	g := newGen(5)
	sent := make(map[string]catalogue.Message)
	for len(sent) < 4 {
		m := g.valid()
		if _, ok := sent[m.SchemaName()]; !ok {
			_, err := Publisher{JetStream: b.js}.Publish(context.Background(), "in.x", m)
			require.NoError(t, err)
			sent[m.SchemaName()] = m
		}
	}
	for _, raw := range b.all("IN") {
		msg := &natsMessage{raw.Header, raw.Data}
		require.Equal(t, binding.EncodingBinary, msg.ReadEncoding())
		e, err := binding.ToEvent(context.Background(), msg)
		require.NoError(t, err)
		require.NoError(t, e.Validate())

		m := sent[e.Type()]
		require.NotNil(t, m, "ce-type %q", e.Type())
		a, err := ce.AttributesOf(m)
		require.NoError(t, err)
		body, _ := m.MarshalJSON()
		assert.Equal(t, "1.0", e.SpecVersion())
		assert.Equal(t, a.ID, e.ID())
		assert.Equal(t, a.Source, e.Source())
		assert.True(t, a.Time.Equal(e.Time()), "%v, %v", a.Time, e.Time())
		assert.Equal(t, a.DataSchema, e.DataSchema())
		assert.Equal(t, "application/json", e.DataContentType())
		assert.Equal(t, body, e.Data())
		assert.Empty(t, e.Extensions(), "nothing but decision 14's attributes")
	}
}

// Our consumer accepts an event the SDK wrote in binary mode, and
// dead-letters one whose id is not its message's.
func TestConsumerAcceptsWhatTheSDKSends(t *testing.T) {
	b := startBroker(t)
	g := newGen(6)
	// First, one the SDK sends with another id than its message's: the
	// consumer takes messages in order, so it is dead-lettered before the
	// valid ones are all handled.
	e := sdkEvent(t, g.valid())
	e.SetID("not-the-message-id")
	out := &natsgo.Msg{Subject: "in.sdk", Header: natsgo.Header{}}
	_, err := binding.Write(binding.WithForceBinary(context.Background()), binding.ToMessage(&e), nil, natsWriter{out})
	require.NoError(t, err)
	publishRaw(t, b, out)

	want := make(map[string]catalogue.Message)
	for range 8 {
		m := g.valid()
		e := sdkEvent(t, m)
		out := &natsgo.Msg{Subject: "in.sdk", Header: natsgo.Header{}}
		enc, err := binding.Write(binding.WithForceBinary(context.Background()), binding.ToMessage(&e), nil, natsWriter{out})
		require.NoError(t, err)
		require.Equal(t, binding.EncodingBinary, enc)
		publishRaw(t, b, out)
		want[e.ID()] = m
	}
	c := &Consumer{JetStream: b.js, From: b.durable("app", "in.>"), DeadLetter: "dead"}
	got := consumeAll(t, c, len(want))
	for id, m := range want {
		require.Contains(t, got, id)
		w, _ := m.MarshalJSON()
		h, _ := got[id].MarshalJSON()
		assert.JSONEq(t, string(w), string(h))
	}
	require.EqualValues(t, 1, b.count("DEAD"))
	_, verdicts := deadLetters(t, b)
	assert.Equal(t, "header", string(verdicts[0].Violations[0].Rule))
	assert.Contains(t, verdicts[0].Violations[0].Message, "ce-id is not a uuid")
}

// The SDK's HTTP client, sending a binary-mode event to the validation
// route that its ce-dataschema names, gets that schema's verdict.
func TestCloudEventsSDKOverHTTPGetsTheVerdictOfItsDataschema(t *testing.T) {
	srv := httptest.NewServer(api.Handler())
	defer srv.Close()
	g := newGen(7)
	var d catalogue.Message
	for d == nil || d.SchemaName() != device.Name {
		d = g.valid()
	}
	// The route of the schema an event's ce-dataschema names.
	route := func(e cloudevents.Event) string {
		u, err := url.Parse(e.DataSchema())
		require.NoError(t, err)
		return srv.URL + u.Path + "/validate"
	}
	send := func(e cloudevents.Event) (int, string) {
		p, err := cehttp.New(cehttp.WithTarget(route(e)))
		require.NoError(t, err)
		resp, err := p.Request(context.Background(), binding.ToMessage(&e))
		var res *cehttp.Result
		require.True(t, cloudevents.ResultAs(err, &res), "%v", err)
		body, rerr := io.ReadAll(resp.(*cehttp.Message).BodyReader)
		require.NoError(t, rerr)
		return res.StatusCode, string(body)
	}

	// Valid, as the device it is.
	e := sdkEvent(t, d)
	status, body := send(e)
	assert.Equal(t, 200, status, body)
	assert.JSONEq(t, `{"schema":"core.device","version":"1.0","valid":true}`, body)

	// Its high-level client agrees.
	client, err := cloudevents.NewClientHTTP()
	require.NoError(t, err)
	res := client.Send(cloudevents.ContextWithTarget(context.Background(), route(e)), e)
	assert.True(t, cloudevents.IsACK(res), "%v", res)

	// The same body, its ce-dataschema naming core.vehicle: judged as a
	// vehicle, by the vehicle's route.
	e.SetDataSchema(vehicle.ID)
	e.SetType(vehicle.Name)
	status, body = send(e)
	assert.Equal(t, 422, status, body)
	var v struct {
		Violations []struct{ Path, Rule string }
	}
	require.NoError(t, json.Unmarshal([]byte(body), &v))
	paths := make(map[string]bool)
	for _, x := range v.Violations {
		paths[x.Path] = true
	}
	assert.True(t, paths["/vehicle_id"], "a vehicle's required member: %s", body)
	assert.True(t, paths["/message_type"], "the family contradicts the headers: %s", body)
	res = client.Send(cloudevents.ContextWithTarget(context.Background(), route(e)), e)
	var hres *cehttp.Result
	require.True(t, errors.As(res, &hres) || cloudevents.ResultAs(res, &hres), "%v", res)
	assert.Equal(t, 422, hres.StatusCode)
}
