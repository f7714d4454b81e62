/** A Redis URL that cannot work (a host that does not exist, refused credentials): the start stops. */
export class RedisConfigError extends Error {}
