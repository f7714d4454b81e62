/**
 * SHA-256 and HMAC-SHA256 from @noble/hashes (audited, synchronous, no `node:crypto`). The signing
 * rules (decisions §5.2, §11.3) are shared by the server and the SDK, and the SDK runs on any runtime
 * with `fetch`; Web Crypto would make every verification asynchronous. This file only adapts the
 * library to the rules' inputs (strings as UTF-8, several parts signed as one message).
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

const encoder = new TextEncoder();

export type Bytes = string | Uint8Array;

/** A string is taken as its UTF-8 bytes. */
export function toBytes(data: Bytes): Uint8Array {
  return typeof data === 'string' ? encoder.encode(data) : data;
}

export function sha256(data: Bytes): Uint8Array {
  return nobleSha256(toBytes(data));
}

/** The MAC of the parts' concatenation, streamed into the hash without copying them together. */
export function hmacSha256(key: Bytes, ...parts: Bytes[]): Uint8Array {
  const mac = hmac.create(nobleSha256, toBytes(key));
  for (const part of parts) mac.update(toBytes(part));
  return mac.digest();
}

export function toHex(bytes: Uint8Array): string {
  return bytesToHex(bytes);
}

/** Standard base64 with padding, through `btoa` (every runtime the SDK supports has it). */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * Constant-time comparison of two strings: the time depends on the length of `expected` (a value
 * the caller computed) only, never on where the strings differ.
 */
export function constantTimeEqual(received: string, expected: string): boolean {
  let diff = received.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) {
    diff |= (received.charCodeAt(i % Math.max(received.length, 1)) || 0) ^ expected.charCodeAt(i);
  }
  return diff === 0;
}
