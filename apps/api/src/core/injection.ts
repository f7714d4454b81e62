import { Inject } from '@nestjs/common';

/** Injection tokens of what the bootstrap makes before Nest (core.module.ts provides them). */
export const DB = Symbol('DB');
export const CONFIG = Symbol('CONFIG');
export const InjectDb = (): ParameterDecorator => Inject(DB);
export const InjectConfig = (): ParameterDecorator => Inject(CONFIG);
