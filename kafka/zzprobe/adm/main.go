package main

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func main() {
	cl, err := kgo.NewClient(kgo.SeedBrokers(os.Args[1]))
	if err != nil {
		panic(err)
	}
	adm := kadm.NewClient(cl)
	ctx := context.Background()
	switch os.Args[2] {
	case "delete":
		r, err := adm.DeleteTopics(ctx, os.Args[3:]...)
		fmt.Println(r, err)
	case "create":
		n, _ := strconv.Atoi(os.Args[3])
		r, err := adm.CreateTopics(ctx, int32(n), 1, nil, os.Args[4:]...)
		fmt.Println(r, err)
	case "addparts":
		n, _ := strconv.Atoi(os.Args[3])
		r, err := adm.CreatePartitions(ctx, n, os.Args[4:]...)
		fmt.Println(r, err)
	case "lag":
		o, err := adm.FetchOffsets(ctx, os.Args[3])
		fmt.Println(o, err)
		e, err := adm.ListEndOffsets(ctx, os.Args[4:]...)
		fmt.Println(e, err)
	}
}
