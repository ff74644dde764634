package catalogue

//go:generate go run ./gen
//go:generate go run ./gen -catalogue testdata/fixture -out internal/fixture -import github.com/fleetkit/catalogue/internal/fixture -export
