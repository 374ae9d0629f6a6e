package serve

import (
	"context"
	"crypto/subtle"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// authHeader is the gRPC metadata key of the bearer token.
const authHeader = "authorization"

// checkToken accepts "Bearer <token>" in the call's metadata.
func checkToken(ctx context.Context, token string) error {
	md, _ := metadata.FromIncomingContext(ctx)
	for _, v := range md.Get(authHeader) {
		got, ok := strings.CutPrefix(v, "Bearer ")
		if ok && subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1 {
			return nil
		}
	}
	return status.Error(codes.Unauthenticated, "serve: missing or wrong bearer token (authorization: Bearer <token>)")
}

func authUnary(token string) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		if err := checkToken(ctx, token); err != nil {
			return nil, err
		}
		return h(ctx, req)
	}
}

func authStream(token string) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
		if err := checkToken(ss.Context(), token); err != nil {
			return err
		}
		return h(srv, ss)
	}
}

// recovered logs a handler panic with its stack on the server and returns
// the Internal status the caller gets (without the stack).
func recovered(log *slog.Logger, method string, r any) error {
	log.Error("serve: handler panicked", "method", method, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
	return status.Error(codes.Internal, fmt.Sprintf("serve: %s failed with an internal error: %v", method, r))
}

// recoverUnary and recoverStream turn a handler panic into an Internal
// status, so that one bad request never takes the server down.
func recoverUnary(log *slog.Logger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (resp any, err error) {
		defer func() {
			if r := recover(); r != nil {
				err = recovered(log, info.FullMethod, r)
			}
		}()
		return h(ctx, req)
	}
}

func recoverStream(log *slog.Logger) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, h grpc.StreamHandler) (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = recovered(log, info.FullMethod, r)
			}
		}()
		return h(srv, ss)
	}
}
