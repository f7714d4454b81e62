import { Module } from '@nestjs/common';
import { ShopController } from './shop.controller';
import { StoresRepository } from './stores.repository';
import { StoresService } from './stores.service';

/** Stores: the operator's stores and the store information read (decisions §3.6, §10). */
@Module({ controllers: [ShopController], providers: [StoresRepository, StoresService], exports: [StoresService] })
export class StoresModule {}
