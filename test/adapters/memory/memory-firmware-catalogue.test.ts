import { MemoryFirmwareCatalogue } from '../../../src/adapters/memory/memory-firmware-catalogue.js';
import { runFirmwareCatalogueContract } from '../../features/firmware/firmware-catalogue.case.js';

runFirmwareCatalogueContract('MemoryFirmwareCatalogue', async () => ({
  catalogue: new MemoryFirmwareCatalogue(),
  dispose: async () => undefined,
}));
