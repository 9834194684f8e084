// Validates and prints docker-compose.yml the way `docker compose config` does, with the same
// library (compose-go): this machine has no Docker Compose, and the file must stay correct.
//
//	go run ./scripts/compose-config docker-compose.yml
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/compose-spec/compose-go/v2/cli"
	"gopkg.in/yaml.v3"
)

func main() {
	// COMPOSE_PROFILES, as docker compose reads it.
	options, err := cli.NewProjectOptions(os.Args[1:], cli.WithOsEnv, cli.WithDotEnv, cli.WithDefaultProfiles())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	project, err := options.LoadProject(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out, err := yaml.Marshal(project)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Print(string(out))
}
