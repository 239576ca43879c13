// Package kubernetes holds the example manifests; its test decodes each
// one strictly with the Kubernetes API types, so that a misspelt field or
// a value of the wrong type is found here and not by kubectl.
package kubernetes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// docs are the YAML documents of the manifests in this folder.
func docs(t *testing.T) map[string][]string {
	t.Helper()
	files, err := filepath.Glob("*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	out := map[string][]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range strings.Split(string(b), "\n---\n") {
			out[f] = append(out[f], d)
		}
	}
	return out
}

func TestManifestsDecodeStrictly(t *testing.T) {
	jobs := 0
	for f, ds := range docs(t) {
		for i, d := range ds {
			var head struct{ APIVersion, Kind string }
			if err := yaml.Unmarshal([]byte(d), &head); err != nil {
				t.Errorf("%s, document %d: %v", f, i+1, err)
				continue
			}
			var obj any
			switch head.APIVersion + " " + head.Kind {
			case "batch/v1 Job":
				obj = &batchv1.Job{}
			case "v1 Service":
				obj = &corev1.Service{}
			case "v1 Secret":
				obj = &corev1.Secret{}
			default:
				t.Errorf("%s, document %d: %s %s is not one this test knows", f, i+1, head.APIVersion, head.Kind)
				continue
			}
			if err := yaml.UnmarshalStrict([]byte(d), obj); err != nil {
				t.Errorf("%s, document %d (%s): %v", f, i+1, head.Kind, err)
				continue
			}
			if j, ok := obj.(*batchv1.Job); ok {
				jobs++
				checkJob(t, f, j)
			}
		}
	}
	if jobs < 5 {
		t.Errorf("%d Jobs decoded, want every example's", jobs)
	}
}

// checkJob: an Indexed Job runs as many pods as it completes, and each
// container runs oltpbench.
func checkJob(t *testing.T, f string, j *batchv1.Job) {
	t.Helper()
	s := j.Spec
	if s.CompletionMode != nil && *s.CompletionMode == batchv1.IndexedCompletion && (s.Parallelism == nil || s.Completions == nil || *s.Parallelism != *s.Completions) {
		t.Errorf("%s: an Indexed Job whose pods do not all run at once", f)
	}
	for _, c := range s.Template.Spec.Containers {
		if cmd := strings.Join(append(c.Command, c.Args...), " "); !strings.Contains(cmd, "oltpbench ") {
			t.Errorf("%s: container %s does not run oltpbench: %s", f, c.Name, cmd)
		}
	}
	if f == "plan-job.yaml" {
		if s.Template.Spec.Subdomain != "oltpbench-plan" || !strings.Contains(strings.Join(s.Template.Spec.Containers[0].Args, " "), "--leader=oltpbench-plan-0.oltpbench-plan:7070") ||
			!strings.Contains(strings.Join(s.Template.Spec.Containers[0].Args, " "), "--clients="+itoa(*s.Completions)) {
			t.Errorf("plan-job.yaml: its pods' subdomain, --leader and --clients do not match the Service and the completions")
		}
	}
}

func itoa(n int32) string {
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}
