package template_test

import (
	"os"
	"testing"

	"github.com/driftgardener/gardener/pkg/local/template"
)

// FuzzParse: any template either parses or says why, never panics.
func FuzzParse(f *testing.F) {
	data, err := os.ReadFile("testdata/template.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte("Resources:\n  A: {Type: AWS::SNS::Topic, Properties: {TopicName: !Sub ['${X}', {X: !Ref AWS::Region}]}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tpl, err := template.Parse(data, nil)
		if err != nil {
			return
		}
		for id := range tpl.StateMachines {
			_, _ = tpl.Definition(id)
		}
	})
}
