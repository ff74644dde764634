package catalogue

//go:generate go run ./gen
//go:generate go run ./gen -catalogue testdata/fixture -out internal/fixture -import github.com/fleetkit/catalogue/internal/fixture -export
//go:generate go run ./gen -catalogue testdata/fixture-vocabulary -out internal/vocabulary -import github.com/fleetkit/catalogue/internal/vocabulary -export
//go:generate go run ./gen -suite testdata/json-schema-test-suite -out internal/suite -import github.com/fleetkit/catalogue/internal/suite
