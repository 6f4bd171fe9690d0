// Package modelspec turns a project's model setting ("builtin" or "bedrock:MODEL_ID") into a
// gardener.Model, so the CLI, the local stack and every Lambda read the setting the same way.
package modelspec

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/driftgardener/gardener/pkg/bedrock"
	"github.com/driftgardener/gardener/pkg/builtin"
	"github.com/driftgardener/gardener/pkg/gardener"
)

// Options configures the Bedrock model; the built-in engine needs none.
type Options struct {
	Region string
	// Endpoint overrides the Bedrock runtime endpoint (a recorded-response server in tests).
	Endpoint string
}

// Open returns the model a spec names. An empty spec is an error: with no model configured the
// gardener writes no repair ("Staged repairs need an AI key").
func Open(ctx context.Context, spec string, o Options) (gardener.Model, error) {
	switch {
	case spec == builtin.Name:
		return builtin.Engine{}, nil
	case strings.HasPrefix(spec, bedrock.SpecPrefix):
		id := strings.TrimPrefix(spec, bedrock.SpecPrefix)
		var opts []func(*config.LoadOptions) error
		if o.Region != "" {
			opts = append(opts, config.WithRegion(o.Region))
		}
		cfg, err := config.LoadDefaultConfig(ctx, opts...)
		if err != nil {
			return nil, fmt.Errorf("model %s: loading the AWS configuration: %w", spec, err)
		}
		if o.Endpoint != "" {
			cfg.BaseEndpoint = aws.String(o.Endpoint)
		}
		return bedrock.NewFromConfig(cfg, id)
	case spec == "":
		return nil, fmt.Errorf("no model configured: give builtin or %sMODEL_ID", bedrock.SpecPrefix)
	}
	return nil, fmt.Errorf("model %q: give builtin or %sMODEL_ID", spec, bedrock.SpecPrefix)
}
