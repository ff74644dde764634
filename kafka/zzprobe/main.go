package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kfake"
)

func main() {
	port := flag.Int("port", 19092, "")
	dir := flag.String("dir", "", "")
	topics := flag.String("topics", "in,out,dead", "")
	maxb := flag.Int("max", 0, "")
	flag.Parse()
	opts := []kfake.Opt{kfake.NumBrokers(1), kfake.Ports(*port), kfake.SeedTopics(3, strings.Split(*topics, ",")...)}
	if *dir != "" {
		opts = append(opts, kfake.DataDir(*dir))
	}
	if *maxb > 0 {
		opts = append(opts, kfake.BrokerConfigs(map[string]string{"message.max.bytes": strconv.Itoa(*maxb)}))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Println(c.ListenAddrs())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt)
	<-ch
	c.Close()
}
