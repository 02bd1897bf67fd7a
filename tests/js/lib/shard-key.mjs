// Which of gate's io threads keeps what a key gate minted names (protocol/shard_key.cpp: FNV-1a
// of its bytes, modulo the thread count): the tests of --io-threads tell where a session is.
export function threadOf(key, count) {
  let h = 14695981039346656037n;
  for (const byte of Buffer.from(key, 'utf8')) {
    h ^= BigInt(byte);
    h = (h * 1099511628211n) & 0xffffffffffffffffn;
  }
  return Number(h % BigInt(count));
}
