package goname

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestExportedSpellsInitialismsAsGoDoes(t *testing.T) {
	for in, want := range map[string]string{
		"message_id":        "MessageID",
		"tenant_id":         "TenantID",
		"imei":              "IMEI",
		"iccid":             "ICCID",
		"vin":               "VIN",
		"seed_odo":          "SeedOdo",
		"seed_odo_time":     "SeedOdoTime",
		"licence_plate":     "LicencePlate",
		"data_provider_key": "DataProviderKey",
		"id":                "ID",
		"occurred_at":       "OccurredAt",
		"api-url":           "APIURL",
		"a.json__b":         "AJSONB",
		"émission":          "Émission",
	} {
		assert.Equal(t, want, Exported(in), in)
	}
}
