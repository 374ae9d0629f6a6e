package warm

import (
	_ "github.com/apache/arrow-go/v18/arrow/array"
	_ "github.com/apache/arrow-go/v18/parquet/pqarrow"
	_ "github.com/parquet-go/parquet-go"
	_ "github.com/hamba/avro/v2/ocf"
	_ "gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/memblob"
	_ "gocloud.dev/blob/s3blob"
	_ "gocloud.dev/blob/gcsblob"
	_ "github.com/minio/minio-go/v7"
	_ "github.com/RoaringBitmap/roaring/v2"
	_ "golang.org/x/sys/unix"
)
