module github.com/fleetkit/catalogue

go 1.26

require (
	github.com/atombender/go-jsonschema v0.24.1
	github.com/google/uuid v1.6.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/stretchr/testify v1.12.1
)

require (
	dario.cat/mergo v1.0.2 // indirect
	github.com/goccy/go-yaml v1.19.2 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/text v0.14.0 // indirect
)
