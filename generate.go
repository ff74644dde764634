package catalogue

//go:generate go run ./gen
