package loader

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/aws/smithy-go"
	"github.com/oltpbench/oltpbench/internal/options"
	"golang.org/x/sync/errgroup"
)

// The parameters of TiDB's external-storage URLs for S3 (IMPORT INTO,
// Lightning and BR read the same string). secret ones are never shown.
var (
	s3Params  = []string{"endpoint", "region", "force-path-style", "use-accelerate-endpoint", "storage-class", "sse", "sse-kms-key-id", "acl", "role-arn", "provider"}
	s3Secrets = []string{"access-key", "secret-access-key", "session-token", "external-id"}
	// Any parameter that looks like a credential, misspelt ones too.
	secretInURL = regexp.MustCompile(`(?i)([?&][a-z0-9_.-]*(?:key|secret|token|password|external-id)[a-z0-9_.-]*=)[^&\s'"]*`)
	// A password before the host (scheme://user:password@host), which no
	// storage URL here takes but a person may type.
	passwordInURL = regexp.MustCompile(`(://[^/@\s:]*:)[^/\s]*@`) // to the last @ of the host part
)

// RedactURL hides the credentials of any storage URL in s, so command lines
// and errors that quote --dir can be shown.
func RedactURL(s string) string {
	return passwordInURL.ReplaceAllString(secretInURL.ReplaceAllString(s, "${1}****"), "${1}****@")
}

// Multipart uploads: parts of partSize (S3's minimum but the last), drawn
// from one pool per store, so memory is the pool's parts whatever the
// dataset size or thread count.
const (
	minPartSize  = 5 << 20
	maxParts     = 10000
	defaultParts = 20
)

type s3Store struct {
	bucket, prefix string     // prefix is "" or ends with "/"
	params         url.Values // the URL's parameters but credentials
	orig           url.Values // all of them
	secrets        []string
	client         *s3.Client
	creds          aws.CredentialsProvider
	pool           *partPool
	endpoint       string // for messages: the custom endpoint or "S3"
	envEndpoint    string // an endpoint from AWS_ENDPOINT_URL(_S3), which TiDB must be told
}

// openS3 parses an s3:// URL with TiDB's parameter names. Keys come from the
// URL, else from role-arn, else from the AWS default chain (environment,
// shared config files, instance roles).
func openS3(raw string, fileSize int64) (*s3Store, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("cannot parse --dir %s: use s3://bucket/prefix?endpoint=...&access-key=...&secret-access-key=...", options.Shown(RedactURL(raw)))
	}
	q := u.Query()
	known := map[string]bool{}
	for _, p := range append(append([]string(nil), s3Params...), s3Secrets...) {
		known[p] = true
	}
	for k := range q {
		if !known[k] {
			return nil, fmt.Errorf("unknown parameter %q in the --dir URL: TiDB's S3 URLs take %s", k, strings.Join(append(append([]string(nil), s3Params...), s3Secrets...), ", "))
		}
	}
	s := &s3Store{bucket: u.Host, prefix: strings.Trim(u.Path, "/"), params: url.Values{}, orig: q, endpoint: "S3"}
	if s.prefix != "" {
		s.prefix += "/"
	}
	for _, p := range s3Params {
		if v := q.Get(p); v != "" {
			s.params.Set(p, v)
		}
	}
	for _, p := range s3Secrets {
		if v := q.Get(p); v != "" {
			s.secrets = append(s.secrets, v)
		}
	}
	pathStyle := true // TiDB's default
	if v := q.Get("force-path-style"); v != "" {
		if pathStyle, err = strconv.ParseBool(v); err != nil {
			return nil, fmt.Errorf("invalid force-path-style=%s in --dir: use true or false", options.Shown(v))
		}
	}
	accel := false
	if v := q.Get("use-accelerate-endpoint"); v != "" {
		if accel, err = strconv.ParseBool(v); err != nil {
			return nil, fmt.Errorf("invalid use-accelerate-endpoint=%s in --dir: use true or false", options.Shown(v))
		}
	}
	ep := q.Get("endpoint")
	if ep != "" {
		e, err := url.Parse(ep)
		if err != nil || (e.Scheme != "http" && e.Scheme != "https") || e.Host == "" {
			return nil, fmt.Errorf("invalid endpoint=%s in --dir: use http://host:port or https://host", options.Shown(ep))
		}
		s.endpoint = ep
	}
	if (q.Get("access-key") == "") != (q.Get("secret-access-key") == "") {
		return nil, errors.New("--dir has one of access-key and secret-access-key: give both, or neither to use the AWS credential chain")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opts := []func(*config.LoadOptions) error{
		// Checksums only where S3 requires them: S3-compatible servers vary
		// in what they take, and the signed payload hash already covers
		// every byte.
		config.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired),
		config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired),
	}
	if r := q.Get("region"); r != "" {
		opts = append(opts, config.WithRegion(r))
	}
	if ak := q.Get("access-key"); ak != "" {
		opts = append(opts, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(ak, q.Get("secret-access-key"), q.Get("session-token"))))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("AWS configuration: %s", s.redact(err.Error()))
	}
	if ep == "" && cfg.BaseEndpoint != nil {
		s.endpoint, s.envEndpoint = *cfg.BaseEndpoint, *cfg.BaseEndpoint // AWS_ENDPOINT_URL(_S3)
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1" // S3-compatible servers take any region
	}
	if arn := q.Get("role-arn"); arn != "" && q.Get("access-key") == "" {
		cfg.Credentials = aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(sts.NewFromConfig(cfg), arn, func(o *stscreds.AssumeRoleOptions) {
			if id := q.Get("external-id"); id != "" {
				o.ExternalID = aws.String(id)
			}
		}))
	}
	s.creds = cfg.Credentials
	s.client = s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.UsePathStyle = pathStyle
		o.UseAccelerate = accel
		if ep != "" {
			o.BaseEndpoint = aws.String(ep)
		}
	})
	part := int64(minPartSize)
	if fileSize/part >= maxParts {
		part = fileSize/(maxParts-1) + 1
	}
	s.pool = &partPool{size: int(part), max: defaultParts, free: make(chan []byte, defaultParts)}
	return s, nil
}

func (s *s3Store) key(name string) string { return s.prefix + name }

// Location is the URL without credentials: what the generated
// {db}-import.sql and every message show.
func (s *s3Store) Location() string {
	return s.location(s.params)
}

func (s *s3Store) location(q url.Values) string {
	u := url.URL{Scheme: "s3", Host: s.bucket, Path: "/" + strings.TrimSuffix(s.prefix, "/")}
	if s.prefix == "" {
		u.Path = ""
	}
	// ':' and '/' are allowed in a query and keep endpoint= readable.
	u.RawQuery = strings.NewReplacer("%3A", ":", "%2F", "/").Replace(q.Encode())
	return u.String()
}

// importLocation is Location with credentials, for an IMPORT INTO that runs
// now: the keys of the URL, else role-arn, else those the credential chain
// gives this machine.
func (s *s3Store) importLocation(ctx context.Context) (string, error) {
	q := url.Values{}
	for k, v := range s.params {
		q[k] = v
	}
	orig := s.orig
	if s.envEndpoint != "" {
		q.Set("endpoint", s.envEndpoint)
	}
	switch {
	case orig.Get("access-key") != "":
		for _, p := range []string{"access-key", "secret-access-key", "session-token"} {
			if v := orig.Get(p); v != "" {
				q.Set(p, v)
			}
		}
	case orig.Get("role-arn") != "":
		if v := orig.Get("external-id"); v != "" {
			q.Set("external-id", v)
		}
	default:
		c, err := s.creds.Retrieve(ctx)
		if err != nil {
			return "", fmt.Errorf("no credentials for IMPORT INTO: %s; put access-key and secret-access-key in --dir or set AWS_ACCESS_KEY_ID", s.redact(err.Error()))
		}
		s.secrets = append(s.secrets, c.AccessKeyID, c.SecretAccessKey, c.SessionToken)
		q.Set("access-key", c.AccessKeyID)
		q.Set("secret-access-key", c.SecretAccessKey)
		if c.SessionToken != "" {
			q.Set("session-token", c.SessionToken)
		}
	}
	return s.location(q), nil
}

// redact hides this store's keys (and any URL's) in a message.
func (s *s3Store) redact(m string) string {
	for _, sec := range s.secrets {
		if sec != "" {
			m = strings.ReplaceAll(m, sec, "****")
		}
	}
	return RedactURL(m)
}

// explain turns an SDK error into one line that names the fix.
func (s *s3Store) explain(op, name string, err error) error {
	where := s.location(nil)
	if name != "" {
		where = strings.TrimRight(where, "/") + "/" + name
		if s.prefix == "" {
			where = "s3://" + s.bucket + "/" + name
		}
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch code := ae.ErrorCode(); code {
		case "NoSuchBucket":
			return fmt.Errorf("bucket %q does not exist at %s: create it, or fix the bucket in --dir", s.bucket, s.endpoint)
		case "InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidToken", "ExpiredToken", "InvalidClientTokenId", "AuthorizationHeaderMalformed":
			return fmt.Errorf("%s refused the credentials (%s) for %s: check access-key and secret-access-key in --dir, or the AWS_* variables", s.endpoint, code, where)
		case "AccessDenied", "Forbidden", "AllAccessDisabled":
			return fmt.Errorf("%s denied %s on %s (%s): the credentials need that permission on the bucket", s.endpoint, op, where, code)
		case "NoSuchKey", "NotFound":
			return fmt.Errorf("%s: no object %s: %w", op, where, os.ErrNotExist)
		default:
			return fmt.Errorf("%s %s: %s: %s", op, where, code, s.redact(ae.ErrorMessage()))
		}
	}
	var ne net.Error
	var oe *net.OpError
	if errors.As(err, &oe) || errors.As(err, &ne) {
		cause := err.Error()
		if oe != nil && oe.Err != nil {
			cause = oe.Err.Error()
		}
		return fmt.Errorf("cannot reach %s (%s) for %s: check endpoint= in --dir and that the server is up", s.endpoint, s.redact(cause), where)
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("%s %s: %s", op, where, s.redact(err.Error()))
}

func (s *s3Store) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 10*time.Minute)
}

// Check lists the prefix (the bucket exists and the keys work), and for
// writes puts and deletes a probe object whose name no listing shows.
func (s *s3Store) Check(write bool) error {
	ctx, cancel := s.ctx()
	defer cancel()
	if _, err := s.client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: aws.String(s.prefix), MaxKeys: aws.Int32(1)}); err != nil {
		return s.explain("ListObjectsV2", "", err)
	}
	if !write {
		return nil
	}
	probe := s.key(fmt.Sprintf(".oltpbench-probe-%d", time.Now().UnixNano()))
	if _, err := s.client.PutObject(ctx, &s3.PutObjectInput{Bucket: &s.bucket, Key: &probe, Body: bytes.NewReader(nil)}); err != nil {
		return s.explain("PutObject", "", err)
	}
	if _, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.bucket, Key: &probe}); err != nil {
		return s.explain("DeleteObject", "", err)
	}
	return nil
}

func (s *s3Store) Create(name string) (Object, error) {
	return &s3Object{s: s, name: name, key: s.key(name)}, nil
}

func (s *s3Store) Open(name string) (io.ReadCloser, error) {
	ctx, cancel := s.ctx()
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: aws.String(s.key(name))})
	if err != nil {
		cancel()
		return nil, s.explain("GetObject", name, err)
	}
	return &cancelReader{ReadCloser: out.Body, cancel: cancel}, nil
}

type cancelReader struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelReader) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

func (s *s3Store) ReadFile(name string) ([]byte, error) {
	r, err := s.Open(name)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, s.explain("GetObject", name, err)
	}
	return b, nil
}

func (s *s3Store) Size(name string) int64 {
	ctx, cancel := s.ctx()
	defer cancel()
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: aws.String(s.key(name))})
	if err != nil || out.ContentLength == nil {
		return -1
	}
	return *out.ContentLength
}

// List names the objects right under the prefix (not deeper: the progress
// logs are "folders"), skipping names that start with a dot.
func (s *s3Store) List(suffix string) ([]string, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	var out []string
	p := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: aws.String(s.prefix), Delimiter: aws.String("/")})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, s.explain("ListObjectsV2", "", err)
		}
		for _, o := range page.Contents {
			n := strings.TrimPrefix(aws.ToString(o.Key), s.prefix)
			if strings.HasSuffix(n, suffix) && !strings.HasPrefix(n, ".") {
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// Log on object storage is one small object per entry under name/, since
// objects cannot be appended to.
func (s *s3Store) Log(name string) (Log, error) { return &s3Log{s: s, dir: s.key(name) + "/"}, nil }

type s3Log struct {
	s   *s3Store
	dir string
}

func (l *s3Log) Add(key string, entry []byte) error {
	ctx, cancel := l.s.ctx()
	defer cancel()
	if _, err := l.s.client.PutObject(ctx, &s3.PutObjectInput{Bucket: &l.s.bucket, Key: aws.String(l.dir + key), Body: bytes.NewReader(entry)}); err != nil {
		return l.s.explain("PutObject", strings.TrimPrefix(l.dir+key, l.s.prefix), err)
	}
	return nil
}

func (l *s3Log) Close() error { return nil }

func (s *s3Store) ReadLog(name string) ([][]byte, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	dir := s.key(name) + "/"
	var keys []string
	p := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{Bucket: &s.bucket, Prefix: &dir})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, s.explain("ListObjectsV2", name, err)
		}
		for _, o := range page.Contents {
			keys = append(keys, strings.TrimPrefix(aws.ToString(o.Key), s.prefix))
		}
	}
	out := make([][]byte, len(keys))
	g := errgroup.Group{}
	g.SetLimit(16)
	for i, k := range keys {
		g.Go(func() (err error) {
			out[i], err = s.ReadFile(k)
			return err
		})
	}
	return out, g.Wait()
}

// WritesHoldThreads: uploads wait in the network poller, not in a thread.
func (s *s3Store) WritesHoldThreads() bool { return false }

// Sweep aborts the multipart uploads an interrupted run left open for these
// names; other names' uploads (another shard's, running now) are left alone.
func (s *s3Store) Sweep(names []string) (int, error) {
	want := map[string]bool{}
	for _, n := range names {
		want[s.key(n)] = true
	}
	ctx, cancel := s.ctx()
	defer cancel()
	var n int
	in := &s3.ListMultipartUploadsInput{Bucket: &s.bucket, Prefix: aws.String(s.prefix)}
	for {
		page, err := s.client.ListMultipartUploads(ctx, in)
		if err != nil {
			return n, s.explain("ListMultipartUploads", "", err)
		}
		for _, u := range page.Uploads {
			if !want[aws.ToString(u.Key)] {
				continue
			}
			if _, err := s.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: &s.bucket, Key: u.Key, UploadId: u.UploadId}); err != nil {
				return n, s.explain("AbortMultipartUpload", strings.TrimPrefix(aws.ToString(u.Key), s.prefix), err)
			}
			n++
		}
		if !aws.ToBool(page.IsTruncated) {
			return n, nil
		}
		in.KeyMarker, in.UploadIdMarker = page.NextKeyMarker, page.NextUploadIdMarker
	}
}

// OpenUploads lists the multipart uploads open under the prefix.
func (s *s3Store) OpenUploads() ([]string, error) {
	ctx, cancel := s.ctx()
	defer cancel()
	page, err := s.client.ListMultipartUploads(ctx, &s3.ListMultipartUploadsInput{Bucket: &s.bucket, Prefix: aws.String(s.prefix)})
	if err != nil {
		return nil, s.explain("ListMultipartUploads", "", err)
	}
	var out []string
	for _, u := range page.Uploads {
		out = append(out, strings.TrimPrefix(aws.ToString(u.Key), s.prefix))
	}
	return out, nil
}

// putOptions are the URL's storage class, encryption and ACL, for every
// object written.
func (s *s3Store) storageClass() types.StorageClass {
	return types.StorageClass(s.params.Get("storage-class"))
}

// partPool hands out part buffers, at most max of them; a writer waits for
// one when all are filling or uploading.
type partPool struct {
	size int
	max  int
	mu   sync.Mutex
	made int
	free chan []byte
}

func (p *partPool) get() []byte {
	select {
	case b := <-p.free:
		return b[:0]
	default:
	}
	p.mu.Lock()
	if p.made < p.max {
		p.made++
		p.mu.Unlock()
		// Outside the Go heap: the pool is fixed memory for the life of the
		// process, and on the heap it would double the collector's goal
		// (measured: RSS 140 MB at 10 warehouses, 180 MB at 50).
		if b, err := syscall.Mmap(-1, 0, p.size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE); err == nil {
			return b[:0]
		}
		return make([]byte, 0, p.size)
	}
	p.mu.Unlock()
	return (<-p.free)[:0]
}

func (p *partPool) put(b []byte) { p.free <- b }

// s3Object streams into a multipart upload part by part; an object smaller
// than a part is one PutObject. Either way it appears under its name only
// when Commit succeeds.
type s3Object struct {
	s         *s3Store
	name, key string
	buf       []byte
	upload    *string
	next      int32
	wg        sync.WaitGroup
	mu        sync.Mutex
	parts     []types.CompletedPart
	err       error
	done      bool
}

func (o *s3Object) failed() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.err
}

func (o *s3Object) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if err := o.failed(); err != nil {
			return n - len(p), err
		}
		if o.buf == nil {
			o.buf = o.s.pool.get()
		}
		c := copy(o.buf[len(o.buf):cap(o.buf)], p)
		o.buf, p = o.buf[:len(o.buf)+c], p[c:]
		if len(o.buf) == cap(o.buf) {
			if err := o.sendPart(); err != nil {
				return n - len(p), err
			}
		}
	}
	return n, nil
}

func (o *s3Object) sendPart() error {
	if o.upload == nil {
		ctx, cancel := o.s.ctx()
		out, err := o.s.client.CreateMultipartUpload(ctx, o.s.createInput(o.key))
		cancel()
		if err != nil {
			return o.s.explain("CreateMultipartUpload", o.name, err)
		}
		o.upload = out.UploadId
	}
	o.next++
	num, b := o.next, o.buf
	o.buf = nil
	o.wg.Add(1)
	go func() {
		defer o.wg.Done()
		defer o.s.pool.put(b)
		ctx, cancel := o.s.ctx()
		defer cancel()
		out, err := o.s.client.UploadPart(ctx, &s3.UploadPartInput{Bucket: &o.s.bucket, Key: &o.key, UploadId: o.upload,
			PartNumber: aws.Int32(num), Body: bytes.NewReader(b), ContentLength: aws.Int64(int64(len(b)))})
		o.mu.Lock()
		defer o.mu.Unlock()
		if err != nil {
			if o.err == nil {
				o.err = o.s.explain("UploadPart", o.name, err)
			}
			return
		}
		o.parts = append(o.parts, types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(num)})
	}()
	return nil
}

func (s *s3Store) createInput(key string) *s3.CreateMultipartUploadInput {
	in := &s3.CreateMultipartUploadInput{Bucket: &s.bucket, Key: &key, StorageClass: s.storageClass()}
	s.encryption(&in.ServerSideEncryption, &in.SSEKMSKeyId, &in.ACL)
	return in
}

func (s *s3Store) encryption(sse *types.ServerSideEncryption, kms **string, acl *types.ObjectCannedACL) {
	*sse = types.ServerSideEncryption(s.params.Get("sse"))
	if k := s.params.Get("sse-kms-key-id"); k != "" {
		*kms = aws.String(k)
	}
	*acl = types.ObjectCannedACL(s.params.Get("acl"))
}

func (o *s3Object) Commit() error {
	if o.done {
		return errors.New("object already closed")
	}
	ctx, cancel := o.s.ctx()
	defer cancel()
	if o.upload == nil {
		o.done = true
		b := o.buf
		if b == nil {
			b = []byte{}
		} else {
			defer o.s.pool.put(b)
		}
		in := &s3.PutObjectInput{Bucket: &o.s.bucket, Key: &o.key, Body: bytes.NewReader(b), ContentLength: aws.Int64(int64(len(b))), StorageClass: o.s.storageClass()}
		o.s.encryption(&in.ServerSideEncryption, &in.SSEKMSKeyId, &in.ACL)
		if _, err := o.s.client.PutObject(ctx, in); err != nil {
			return o.s.explain("PutObject", o.name, err)
		}
		return nil
	}
	if len(o.buf) > 0 {
		if err := o.sendPart(); err != nil {
			o.Abort()
			return err
		}
	}
	o.wg.Wait()
	if err := o.failed(); err != nil {
		o.Abort()
		return err
	}
	o.done = true
	sort.Slice(o.parts, func(i, j int) bool { return *o.parts[i].PartNumber < *o.parts[j].PartNumber })
	if _, err := o.s.client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: &o.s.bucket, Key: &o.key, UploadId: o.upload,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: o.parts}}); err != nil {
		o.abortUpload()
		return o.s.explain("CompleteMultipartUpload", o.name, err)
	}
	return nil
}

// Abort waits for the parts in flight and aborts the upload, so nothing is
// left under the name or open on the server.
func (o *s3Object) Abort() {
	if o.done {
		return
	}
	o.done = true
	o.wg.Wait()
	if o.buf != nil {
		o.s.pool.put(o.buf)
		o.buf = nil
	}
	o.abortUpload()
}

func (o *s3Object) abortUpload() {
	if o.upload == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	o.s.client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: &o.s.bucket, Key: &o.key, UploadId: o.upload})
}
