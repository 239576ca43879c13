// Package s3test gives tests a fresh bucket on the S3-compatible server that
// scripts/s3-start.sh runs (Versity S3 Gateway), named by the
// OLTPBENCH_TEST_S3_* variables. No mock: without the server a test skips,
// and fails under CI.
package s3test

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Server is the test server: its endpoint, root keys and backing folder.
type Server struct {
	Endpoint, AccessKey, SecretKey string
	ReaderKey, ReaderSecret        string // an account with no rights of its own
	Data                           string // the posix backend's folder
}

// Need returns the server, or skips (fails under CI) when there is none.
func Need(t testing.TB) Server {
	t.Helper()
	s := Server{Endpoint: os.Getenv("OLTPBENCH_TEST_S3_ENDPOINT"), AccessKey: os.Getenv("OLTPBENCH_TEST_S3_ACCESS_KEY"),
		SecretKey: os.Getenv("OLTPBENCH_TEST_S3_SECRET_KEY"), Data: os.Getenv("OLTPBENCH_TEST_S3_DATA"),
		ReaderKey: os.Getenv("OLTPBENCH_TEST_S3_READER_KEY"), ReaderSecret: os.Getenv("OLTPBENCH_TEST_S3_READER_SECRET")}
	if s.Endpoint == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("OLTPBENCH_TEST_S3_ENDPOINT not set: run through make test")
		}
		t.Skip("no S3 test server: run make test")
	}
	return s
}

// Client is an S3 client with the root keys.
func (s Server) Client() *s3.Client {
	return s.client(s.AccessKey, s.SecretKey)
}

func (s Server) client(ak, sk string) *s3.Client {
	return s3.New(s3.Options{Region: "us-east-1", BaseEndpoint: aws.String(s.Endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(ak, sk, "")})
}

var seq atomic.Int64

var unsafe = regexp.MustCompile(`[^a-z0-9]+`)

// Bucket creates an empty bucket named after the test.
func (s Server) Bucket(t testing.TB) string {
	t.Helper()
	name := strings.Trim(unsafe.ReplaceAllString(strings.ToLower(t.Name()), "-"), "-")
	if len(name) > 40 {
		name = name[len(name)-40:]
	}
	name = strings.Trim(fmt.Sprintf("t%d-%d-%s", os.Getpid()%100000, seq.Add(1), name), "-")
	if _, err := s.Client().CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: &name}); err != nil {
		t.Fatalf("creating bucket %s: %v", name, err)
	}
	return name
}

// URL is s3://bucket/prefix with the endpoint and the root keys, as a user
// writes it for --dir.
func (s Server) URL(bucket, prefix string) string {
	return s.URLWith(bucket, prefix, s.AccessKey, s.SecretKey)
}

// URLWith is URL with other keys.
func (s Server) URLWith(bucket, prefix, ak, sk string) string {
	q := url.Values{"endpoint": {s.Endpoint}, "access-key": {ak}, "secret-access-key": {sk}}
	u := "s3://" + bucket
	if prefix != "" {
		u += "/" + prefix
	}
	return u + "?" + q.Encode()
}

// GrantRead lets the reader account list and get the bucket's objects.
func (s Server) GrantRead(t testing.TB, bucket string) {
	t.Helper()
	policy := fmt.Sprintf(`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":[%q]},"Action":["s3:ListBucket","s3:GetObject"],"Resource":["arn:aws:s3:::%s","arn:aws:s3:::%s/*"]}]}`,
		s.ReaderKey, bucket, bucket)
	if _, err := s.Client().PutBucketPolicy(context.Background(), &s3.PutBucketPolicyInput{Bucket: &bucket, Policy: &policy}); err != nil {
		t.Fatalf("bucket policy: %v", err)
	}
}

// Objects lists every key in the bucket under prefix, with sizes.
func (s Server) Objects(t testing.TB, bucket, prefix string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	p := s3.NewListObjectsV2Paginator(s.Client(), &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: &prefix})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatalf("listing %s: %v", bucket, err)
		}
		for _, o := range page.Contents {
			out[aws.ToString(o.Key)] = aws.ToInt64(o.Size)
		}
	}
	return out
}

// Get reads one object.
func (s Server) Get(t testing.TB, bucket, key string) []byte {
	t.Helper()
	out, err := s.Client().GetObject(context.Background(), &s3.GetObjectInput{Bucket: &bucket, Key: &key})
	if err != nil {
		t.Fatalf("get %s/%s: %v", bucket, key, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		t.Fatalf("get %s/%s: %v", bucket, key, err)
	}
	return b
}

// OpenUploads counts the multipart uploads open in the bucket.
func (s Server) OpenUploads(t testing.TB, bucket string) []string {
	t.Helper()
	out, err := s.Client().ListMultipartUploads(context.Background(), &s3.ListMultipartUploadsInput{Bucket: &bucket})
	if err != nil {
		t.Fatalf("listing uploads of %s: %v", bucket, err)
	}
	var keys []string
	for _, u := range out.Uploads {
		keys = append(keys, aws.ToString(u.Key))
	}
	return keys
}
