// The Node peer of the fetch benchmark (issue 33): `store.get` as a team would write it in an afternoon with Node's
// own `node:http2` — JSON-RPC 2.0 over HTTP/2, the caller's ES256 access token verified against auth's published keys
// (each token verified once, then remembered until it expires), the notification kept in memory — so every fetch run
// measures ours beside what a user would write instead. No npm package: Node 20's standard library only.
//
//   node Benchmarks/node_store_peer.mjs --port P --keys keys.json --records records.json [--cert C --key K]
//
// keys.json: auth.keys' result ({"keys":[{kty,crv,x,y,kid,…}]}). records.json: {"<notificationId>":
// {"recipientId": "<user id>", "result": <store.get's result object>}}. With --cert and --key it serves TLS
// (ALPN h2). Prints "listening <port>" once it accepts connections.
import { createServer, createSecureServer, constants } from "node:http2";
import { createPublicKey, verify } from "node:crypto";
import { readFileSync } from "node:fs";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, arg, index, all) => {
    if (arg.startsWith("--")) pairs.push([arg.slice(2), all[index + 1]]);
    return pairs;
  }, []),
);
const port = Number(args.port);
const keys = new Map(
  JSON.parse(readFileSync(args.keys, "utf8")).keys.map((jwk) => [
    jwk.kid,
    createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }, format: "jwk" }),
  ]),
);
const records = new Map(Object.entries(JSON.parse(readFileSync(args.records, "utf8"))));

// token → {subject, expires}: a token's signature is checked once; at most 10,000 remembered.
const verified = new Map();

function subjectOf(token) {
  const now = Date.now() / 1000;
  const known = verified.get(token);
  if (known) return known.expires > now ? known.subject : null;
  const parts = token.split(".");
  if (parts.length !== 3) return null;
  let header, claims;
  try {
    header = JSON.parse(Buffer.from(parts[0], "base64url"));
    claims = JSON.parse(Buffer.from(parts[1], "base64url"));
  } catch {
    return null;
  }
  const key = keys.get(header.kid);
  if (header.alg !== "ES256" || !key) return null;
  const signed = verify(
    "sha256",
    Buffer.from(`${parts[0]}.${parts[1]}`),
    { key, dsaEncoding: "ieee-p1363" },
    Buffer.from(parts[2], "base64url"),
  );
  if (!signed || typeof claims.sub !== "string" || !(claims.exp > now)) return null;
  if (verified.size >= 10_000) verified.clear();
  verified.set(token, { subject: claims.sub, expires: claims.exp });
  return claims.sub;
}

function reply(stream, body) {
  stream.respond({ ":status": 200, "content-type": "application/json" });
  stream.end(body);
}

function error(stream, id, code, message) {
  reply(stream, JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }));
}

function handle(stream, headers) {
  if (headers[":method"] !== "POST" || headers[":path"] !== "/rpc") {
    stream.respond({ ":status": 404 });
    stream.end();
    return;
  }
  const chunks = [];
  let size = 0;
  stream.on("data", (chunk) => {
    size += chunk.length;
    if (size > 1 << 20) stream.close(constants.NGHTTP2_REFUSED_STREAM);
    else chunks.push(chunk);
  });
  stream.on("end", () => {
    let request;
    try {
      request = JSON.parse(Buffer.concat(chunks));
    } catch {
      return error(stream, null, -32700, "Parse error");
    }
    const id = request.id ?? null;
    if (request.jsonrpc !== "2.0" || request.method !== "store.get") {
      return error(stream, id, -32601, "Method not found");
    }
    const notificationId = request.params?.notificationId;
    if (typeof notificationId !== "string") return error(stream, id, -32602, "Invalid params: notificationId");
    const authorization = headers.authorization ?? "";
    const subject = authorization.startsWith("Bearer ") ? subjectOf(authorization.slice(7)) : null;
    if (!subject) return error(stream, id, -32001, "Unauthenticated");
    const record = records.get(notificationId);
    if (!record || record.recipientId !== subject) return error(stream, id, -32004, "Not found");
    reply(stream, JSON.stringify({ jsonrpc: "2.0", id, result: record.result }));
  });
}

const server =
  args.cert && args.key
    ? createSecureServer({ cert: readFileSync(args.cert), key: readFileSync(args.key), allowHTTP1: false })
    : createServer();
server.on("stream", handle);
server.on("sessionError", () => {});
server.listen(port, "127.0.0.1", () => console.log(`listening ${port}`));
