import { Module } from '@nestjs/common';
import { TokensRepository } from './tokens.repository';
import { TokensService } from './tokens.service';

/** Access tokens of every app kind: issue, replace with grace, revoke, look up (decisions §5). */
@Module({ providers: [TokensRepository, TokensService], exports: [TokensService] })
export class TokensModule {}
